// The QuotaStore tells its observer which `alerts:` a reservation's counters reached: at the
// threshold of the limit that applies to the subject (an override's), for warn windows too, and
// for a request the window refuses; never for a window without alerts.
#include <boost/test/unit_test.hpp>

#include <memory>

#include "server/identity/quota_store.h"
#include "tests/fakes/fake_quota_counters.h"
#include "tests/server/identity/quota_windows.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;

namespace {

TimePoint utc(int y, unsigned m, unsigned d, int h = 0) { return sys_days(year_month_day(year(y), month(m), day(d))) + hours(h); }

// A monthly project budget of $100, research $1,000, an alert at 80 %.
catalog::QuotaWindow budget(catalog::QuotaMode mode) {
  catalog::QuotaWindow w = test::window("budget", catalog::QuotaScope::Project, 0);
  w.period = catalog::QuotaPeriod::Month;
  w.mode = mode;
  w.max_cost_microdollars = 100'000'000;
  catalog::QuotaOverride research;
  research.kind = catalog::QuotaSubjectKind::Project;
  research.name = "research";
  research.limits.max_cost_microdollars = 1'000'000'000;
  w.overrides.push_back(research);
  w.alerts.push_back({80, "finance", {}});
  return w;
}

struct Observed {
  std::vector<AlertDue> alerts;
  void attach(QuotaStore& store) {
    store.observeAlerts([this](std::vector<AlertDue> due) {
      for (auto& alert : due) alerts.push_back(std::move(alert));
    });
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_alerts)

BOOST_AUTO_TEST_CASE(a_reservation_past_80_percent_of_the_subjects_own_limit_is_observed) {
  QuotaStore store(std::make_shared<fakes::FakeQuotaCounters>());
  Observed observed;
  observed.attach(store);
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(budget(catalog::QuotaMode::Enforce));
  const TimePoint now = utc(2026, 12, 3, 9);
  const auto spend = [&](std::string project, int64_t usd) {
    const Reservation held = store.reserve(quotas, test::subject("ann", project), 0, now);
    if (held.admitted) store.settle(held, QuotaUsage{0, 0, 0, usd * 1'000'000});
    return held;
  };
  spend("research", 790);  // $100 would be 790 % of the default: research's own $1,000 applies
  spend("research", 5);
  BOOST_TEST(observed.alerts.empty());
  spend("research", 10);  // sees $795: still under $800
  BOOST_TEST(observed.alerts.empty());
  spend("research", 0);  // sees $805
  BOOST_REQUIRE(observed.alerts.size() == 1u);
  BOOST_TEST(observed.alerts[0].scope_value == "research");
  BOOST_TEST(observed.alerts[0].limit_source == "project/research");
  BOOST_TEST(observed.alerts[0].used == 805'000'000);
  BOOST_TEST((observed.alerts[0].span.start == utc(2026, 12, 1)));
  // A refused request still tells: marketing ($100) spends $150, is refused, and is seen at 150 %.
  spend("marketing", 150);
  BOOST_TEST(!spend("marketing", 1).admitted);
  BOOST_REQUIRE(observed.alerts.size() >= 2u);
  BOOST_TEST(observed.alerts.back().scope_value == "marketing");
}

BOOST_AUTO_TEST_CASE(a_warn_window_alerts_without_refusing_and_a_window_without_alerts_is_silent) {
  QuotaStore store(std::make_shared<fakes::FakeQuotaCounters>());
  Observed observed;
  observed.attach(store);
  catalog::Quotas quotas;
  quotas.windows.push_back(budget(catalog::QuotaMode::Warn));
  quotas.windows.push_back(test::window("quiet", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = 1;
  const TimePoint now = utc(2026, 12, 3, 9);
  const Reservation first = store.reserve(quotas, test::subject("bob", "ops"), 0, now);
  store.settle(first, QuotaUsage{0, 0, 0, 200'000'000});
  const Reservation second = store.reserve(quotas, test::subject("bob", "ops"), 0, now);
  BOOST_TEST(second.admitted);
  BOOST_REQUIRE(observed.alerts.size() == 1u);
  BOOST_TEST(observed.alerts[0].window_id == "budget");
  BOOST_TEST(observed.alerts[0].percent == 80);
}

BOOST_AUTO_TEST_SUITE_END()
