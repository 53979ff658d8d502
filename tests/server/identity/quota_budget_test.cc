// Budgets as finance writes them: calendar periods in a zone (month lengths, daylight-saving
// changes, the exact boundary), limits per subject (overrides, per-group windows), spend that keeps
// counting across unrelated catalog edits, and warn windows beside enforced ones. Pure rules with
// a fake clock, then QuotaStore over the in-memory counters.
#include <boost/test/unit_test.hpp>

#include <memory>

#include "catalog/zone_rules.h"
#include "server/identity/quota.h"
#include "server/identity/quota_store.h"
#include "tests/fakes/fake_quota_counters.h"
#include "tests/server/identity/quota_windows.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::subject;
using test::window;

namespace {

TimePoint utc(int y, unsigned m, unsigned d, int h = 0, int min = 0, int s = 0) {
  return sys_days(year_month_day(year(y), month(m), day(d))) + hours(h) + minutes(min) + seconds(s);
}

int64_t epoch(TimePoint time) { return duration_cast<seconds>(time.time_since_epoch()).count(); }

// Paris in 2026: CET (+1), CEST (+2) from 2026-03-29T01:00Z to 2026-10-25T01:00Z.
std::shared_ptr<const catalog::ZoneRules> paris() {
  auto rules = std::make_shared<catalog::ZoneRules>();
  rules->name = "Europe/Paris";
  rules->initial_offset = 3600;
  rules->transitions = {{epoch(utc(2026, 3, 29, 1)), 7200}, {epoch(utc(2026, 10, 25, 1)), 3600}};
  return rules;
}

catalog::QuotaWindow calendar(catalog::QuotaPeriod period, std::shared_ptr<const catalog::ZoneRules> zone = nullptr) {
  catalog::QuotaWindow w = window("budget", catalog::QuotaScope::Project, 0);
  w.period = period;
  if (zone) {
    w.timezone = zone->name;
    w.zone = std::move(zone);
  }
  w.max_cost_microdollars = 100'000'000;
  return w;
}

catalog::QuotaOverride entry(catalog::QuotaSubjectKind kind, std::string name, std::optional<int64_t> usd) {
  catalog::QuotaOverride o;
  o.kind = kind;
  o.name = std::move(name);
  if (usd) o.limits.max_cost_microdollars = *usd * 1'000'000;
  return o;
}

// "research $5,000 a month, marketing $500, interns $20 each, the CEO unlimited, $100 otherwise".
catalog::QuotaWindow financeMonth(catalog::QuotaScope per) {
  catalog::QuotaWindow w = calendar(catalog::QuotaPeriod::Month);
  w.per = per;
  w.overrides = {entry(catalog::QuotaSubjectKind::Project, "research", 5000),
                 entry(catalog::QuotaSubjectKind::Project, "marketing", 500),
                 entry(catalog::QuotaSubjectKind::Group, "interns", 20),
                 entry(catalog::QuotaSubjectKind::Member, "ceo", std::nullopt)};
  return w;
}

QuotaSubject member(std::string user, std::string project, std::vector<std::string> groups = {}) {
  QuotaSubject s = subject(std::move(user), std::move(project));
  s.groups = std::move(groups);
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_budget)

BOOST_AUTO_TEST_CASE(a_calendar_month_runs_from_the_first_to_the_first_whatever_its_length) {
  const auto month = calendar(catalog::QuotaPeriod::Month);
  struct Row {
    TimePoint now, start, end;
  };
  for (const Row& row : std::vector<Row>{{utc(2026, 2, 14, 12), utc(2026, 2, 1), utc(2026, 3, 1)},
                                         {utc(2028, 2, 29, 23, 59, 59), utc(2028, 2, 1), utc(2028, 3, 1)},
                                         {utc(2026, 12, 31, 23), utc(2026, 12, 1), utc(2027, 1, 1)},
                                         {utc(2026, 4, 30, 10), utc(2026, 4, 1), utc(2026, 5, 1)}}) {
    const WindowSpan span = spanOf(month, row.now);
    BOOST_TEST(formatUtc(span.start) == formatUtc(row.start));
    BOOST_TEST(formatUtc(span.end) == formatUtc(row.end));
  }
}

BOOST_AUTO_TEST_CASE(a_period_resets_exactly_at_its_boundary_whatever_the_process_saw_before) {
  const auto month = calendar(catalog::QuotaPeriod::Month);
  const TimePoint boundary = utc(2026, 12, 1);
  BOOST_TEST(formatUtc(spanOf(month, boundary - milliseconds(1)).end) == "2026-12-01T00:00:00Z");
  BOOST_TEST(formatUtc(spanOf(month, boundary).start) == "2026-12-01T00:00:00Z");
  // A day and a week (from Monday) alike; 2026-11-29 is a Sunday.
  const auto day = calendar(catalog::QuotaPeriod::Day);
  const auto week = calendar(catalog::QuotaPeriod::Week);
  BOOST_TEST(formatUtc(spanOf(day, utc(2026, 11, 29, 23, 59, 59)).end) == "2026-11-30T00:00:00Z");
  BOOST_TEST(formatUtc(spanOf(week, utc(2026, 11, 29, 23, 59, 59)).start) == "2026-11-23T00:00:00Z");
  BOOST_TEST(formatUtc(spanOf(week, utc(2026, 11, 30)).start) == "2026-11-30T00:00:00Z");
  BOOST_TEST(formatUtc(spanOf(week, utc(2026, 11, 30)).end) == "2026-12-07T00:00:00Z");
}

BOOST_AUTO_TEST_CASE(a_month_in_a_zone_starts_at_local_midnight_on_either_side_of_a_clock_change) {
  const auto month = calendar(catalog::QuotaPeriod::Month, paris());
  // March: from 1 March 00:00 CET to 1 April 00:00 CEST.
  const WindowSpan march = spanOf(month, utc(2026, 3, 15));
  BOOST_TEST(formatUtc(march.start) == "2026-02-28T23:00:00Z");
  BOOST_TEST(formatUtc(march.end) == "2026-03-31T22:00:00Z");
  // 31 March 22:30Z is already April in Paris.
  BOOST_TEST(formatUtc(spanOf(month, utc(2026, 3, 31, 22, 30)).start) == "2026-03-31T22:00:00Z");
  // The day of the spring change has 23 hours; the autumn one 25.
  const auto day = calendar(catalog::QuotaPeriod::Day, paris());
  const WindowSpan spring = spanOf(day, utc(2026, 3, 29, 12));
  BOOST_TEST((spring.end - spring.start == hours(23)));
  const WindowSpan autumn = spanOf(day, utc(2026, 10, 25, 12));
  BOOST_TEST((autumn.end - autumn.start == hours(25)));
}

BOOST_AUTO_TEST_CASE(each_subject_gets_its_own_limit_and_says_why) {
  const auto per_project = financeMonth(catalog::QuotaScope::Project);
  const auto research = limitsFor(per_project, "project", "research", member("ann", "research"));
  BOOST_TEST(research.limits.max_cost_microdollars.value_or(0) == 5'000'000'000);
  BOOST_TEST(research.source == "project/research");
  BOOST_TEST(limitsFor(per_project, "project", "marketing", member("bob", "marketing")).source == "project/marketing");
  const auto other = limitsFor(per_project, "project", "ops", member("cid", "ops"));
  BOOST_TEST(other.source == "default");
  BOOST_TEST(other.limits.max_cost_microdollars.value_or(0) == 100'000'000);
  // A project's counter has one limit whoever calls: not the CEO's, not an intern's.
  BOOST_TEST(limitsFor(per_project, "project", "ops", member("ceo", "ops", {"interns"})).source == "default");
  BOOST_TEST(limitsFor(per_project, "project", "research", member("ceo", "research")).source == "project/research");

  // Per member: each intern has $20 of their own; the CEO no limit; a researcher the project's.
  const auto per_user = financeMonth(catalog::QuotaScope::User);
  const auto intern = limitsFor(per_user, "user", "ida", member("ida", "research", {"staff", "interns"}));
  BOOST_TEST(intern.source == "group/interns");
  BOOST_TEST(intern.limits.max_cost_microdollars.value_or(0) == 20'000'000);
  const auto ceo = limitsFor(per_user, "user", "ceo", member("ceo", "research", {"interns"}));
  BOOST_TEST(ceo.source == "member/ceo");  // the member before their groups
  BOOST_TEST(ceo.limits.unlimited());
}

BOOST_AUTO_TEST_CASE(a_per_group_window_counts_each_group_of_the_member_together) {
  catalog::Quotas quotas;
  quotas.windows.push_back(financeMonth(catalog::QuotaScope::Group));
  const auto counters = countersFor(quotas, member("ida", "research", {"interns", "staff", "interns"}), utc(2026, 12, 3));
  BOOST_REQUIRE(counters.size() == 2u);
  BOOST_TEST(counters[0].scope_kind == "group");
  BOOST_TEST(counters[0].scope_value == "interns");
  BOOST_TEST(counters[0].applied->source == "group/interns");
  BOOST_TEST(counters[1].scope_value == "staff");
  BOOST_TEST(counters[1].applied->source == "default");
  BOOST_TEST(countersFor(quotas, member("nobody", "research"), utc(2026, 12, 3)).empty());
}

BOOST_AUTO_TEST_CASE(two_projects_are_refused_at_their_own_limit_and_not_before) {
  auto counters = std::make_shared<fakes::FakeQuotaCounters>();
  QuotaStore store(counters);
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(financeMonth(catalog::QuotaScope::Project));
  const TimePoint now = utc(2026, 12, 3, 9);
  const auto spend = [&](const QuotaSubject& who, int64_t usd) {
    const Reservation held = store.reserve(quotas, who, 0, now);
    if (held.admitted) store.settle(held, QuotaUsage{0, 0, 0, usd * 1'000'000});
    return held;
  };
  BOOST_TEST(spend(member("bob", "marketing"), 499).admitted);
  BOOST_TEST(spend(member("bob", "marketing"), 2).admitted);       // $499 spent: room left
  const Reservation marketing = spend(member("bob", "marketing"), 1);  // $501 spent: over $500
  BOOST_TEST(!marketing.admitted);
  BOOST_TEST(marketing.breach->message().find("$501.00 of $500.00 spent (the limit of project/marketing)") !=
                 std::string::npos,
             marketing.breach->message());
  BOOST_TEST(spend(member("ann", "research"), 4000).admitted);      // research's $5,000 is its own
  BOOST_TEST(spend(member("ann", "research"), 1000).admitted);     // $4,000 spent: room left
  BOOST_TEST(!spend(member("ann", "research"), 1).admitted);
  // The next month starts empty, at its first second.
  BOOST_TEST(store.reserve(quotas, member("bob", "marketing"), 0, utc(2027, 1, 1)).admitted);
}

BOOST_AUTO_TEST_CASE(spend_keeps_counting_when_the_catalog_changes_around_the_window) {
  const TimePoint now = utc(2026, 12, 3, 9);
  catalog::Quotas before;
  before.windows.push_back(financeMonth(catalog::QuotaScope::Project));
  // Another window added in front, the limits raised, an override added: the counter is the same row.
  catalog::Quotas after;
  after.windows.push_back(window("hourly", catalog::QuotaScope::User, 3600));
  after.windows.back().max_requests = 5;
  after.windows.push_back(financeMonth(catalog::QuotaScope::Project));
  after.windows.back().max_cost_microdollars = 900'000'000;
  after.windows.back().overrides.push_back(entry(catalog::QuotaSubjectKind::Project, "ops", 50));
  const auto old_counter = countersFor(before, member("cid", "research"), now).at(0);
  const auto new_counter = countersFor(after, member("cid", "research"), now).at(1);
  BOOST_TEST(old_counter.scope_kind == new_counter.scope_kind);
  BOOST_TEST(old_counter.scope_value == new_counter.scope_value);
  BOOST_TEST(old_counter.window->id == new_counter.window->id);
  BOOST_TEST((old_counter.span.start == new_counter.span.start));
}

BOOST_AUTO_TEST_CASE(a_warn_window_records_its_breach_beside_an_enforced_one_without_refusing) {
  auto counters = std::make_shared<fakes::FakeQuotaCounters>();
  QuotaStore store(counters);
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("soft", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = 1;
  quotas.windows.back().mode = catalog::QuotaMode::Warn;
  quotas.windows.push_back(window("hard", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = 3;
  const TimePoint now = utc(2026, 12, 3, 9);
  BOOST_TEST(store.reserve(quotas, subject("alice"), 0, now).admitted);
  const Reservation second = store.reserve(quotas, subject("alice"), 0, now);
  BOOST_TEST(second.admitted);  // over the warn window only
  BOOST_REQUIRE(second.breach.has_value());
  BOOST_TEST(second.breach->window_id == "soft");
  BOOST_TEST(store.reserve(quotas, subject("alice"), 0, now).admitted);
  const Reservation fourth = store.reserve(quotas, subject("alice"), 0, now);
  BOOST_TEST(!fourth.admitted);
  BOOST_TEST(fourth.breach->window_id == "hard");
}

BOOST_AUTO_TEST_SUITE_END()
