#include "server/identity/quota.h"

#include <boost/test/unit_test.hpp>

#include "tests/server/identity/quota_windows.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::window;

namespace {

// 2026-11-29T21:43:20Z, a Sunday.
const TimePoint kNow = TimePoint(seconds(1'795'988'600));

TimePoint utc(int y, unsigned m, unsigned d, int h = 0, int min = 0, int s = 0) {
  return sys_days(year_month_day(year(y), month(m), day(d))) + hours(h) + minutes(min) + seconds(s);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota)

BOOST_AUTO_TEST_CASE(windows_that_divide_a_day_start_on_utc_boundaries) {
  const TimePoint now = utc(2026, 11, 29, 21, 43, 20) + milliseconds(500);
  struct Row {
    int64_t seconds;
    TimePoint start;
  };
  for (const Row& row : std::vector<Row>{{60, utc(2026, 11, 29, 21, 43)},
                                         {300, utc(2026, 11, 29, 21, 40)},
                                         {3600, utc(2026, 11, 29, 21)},
                                         {6 * 3600, utc(2026, 11, 29, 18)},
                                         {86400, utc(2026, 11, 29)}}) {
    const WindowSpan span = windowSpan(row.seconds, now);
    BOOST_TEST(formatUtc(span.start) == formatUtc(row.start), row.seconds);
    BOOST_TEST((span.end - span.start == seconds(row.seconds)));
  }
}

BOOST_AUTO_TEST_CASE(week_windows_start_on_monday) {
  // 2026-11-29 is a Sunday: its week began on Monday 2026-11-23.
  const WindowSpan week = windowSpan(7 * 86400, utc(2026, 11, 29, 21));
  BOOST_TEST(formatUtc(week.start) == "2026-11-23T00:00:00Z");
  BOOST_TEST(formatUtc(week.end) == "2026-11-30T00:00:00Z");
  const WindowSpan monday = windowSpan(7 * 86400, utc(2026, 11, 30));
  BOOST_TEST(formatUtc(monday.start) == "2026-11-30T00:00:00Z");
  const WindowSpan fortnight = windowSpan(14 * 86400, utc(2026, 11, 29));
  BOOST_TEST((weekday(floor<days>(fortnight.start)) == Monday));
}

BOOST_AUTO_TEST_CASE(long_windows_are_fixed_from_the_epoch_and_contain_now) {
  for (const int64_t secs : {int64_t{2'592'000}, int64_t{31 * 86400}, int64_t{90 * 60}}) {
    const WindowSpan span = windowSpan(secs, kNow);
    BOOST_TEST((span.start <= kNow && kNow < span.end));
    BOOST_TEST(duration_cast<seconds>(span.start.time_since_epoch()).count() % secs == 0);
  }
}

BOOST_AUTO_TEST_CASE(the_last_second_belongs_to_the_window_and_the_end_to_the_next) {
  const TimePoint end = utc(2026, 11, 29, 22);
  BOOST_TEST(formatUtc(windowSpan(3600, end - nanoseconds(1)).start) == "2026-11-29T21:00:00Z");
  BOOST_TEST(formatUtc(windowSpan(3600, end).start) == "2026-11-29T22:00:00Z");
}

BOOST_AUTO_TEST_CASE(counters_follow_the_subject_and_skip_missing_scopes) {
  catalog::Quotas quotas;
  quotas.windows = {window("member-hourly", catalog::QuotaScope::User, 3600),
                    window("project-monthly", catalog::QuotaScope::Project, 2'592'000),
                    window("key-daily", catalog::QuotaScope::ApiKey, 86400),
                    window("org-minute", catalog::QuotaScope::Organisation, 60)};
  QuotaSubject subject;
  subject.user = "alice";
  subject.api_key_id = "Ab3dE6gH";
  auto counters = countersFor(quotas, subject, kNow);
  BOOST_REQUIRE(counters.size() == 3u);  // no project
  BOOST_TEST(counters[0].scope_kind == "user");
  BOOST_TEST(counters[0].scope_value == "alice");
  BOOST_TEST(counters[1].scope_kind == "api_key");
  BOOST_TEST(counters[1].scope_value == "Ab3dE6gH");
  BOOST_TEST(counters[2].scope_value == "organisation");
  subject.project = "odoo-delivery";
  counters = countersFor(quotas, subject, kNow);
  BOOST_REQUIRE(counters.size() == 4u);
  BOOST_TEST(counters[1].scope_value == "odoo-delivery");
  BOOST_TEST(counters[1].window->id == "project-monthly");
}

BOOST_AUTO_TEST_CASE(tool_call_windows_count_tool_calls_only) {
  catalog::Quotas quotas;
  quotas.windows = {window("member-hourly", catalog::QuotaScope::User, 3600),
                    window("tool-calls", catalog::QuotaScope::User, 3600)};
  quotas.windows[0].max_requests = 100;
  quotas.windows[1].unit = catalog::QuotaUnit::ToolCalls;
  quotas.windows[1].max_tool_calls = 2;
  QuotaSubject subject;
  subject.user = "alice";
  const auto models = countersFor(quotas, subject, kNow, catalog::QuotaUnit::Requests);
  BOOST_REQUIRE(models.size() == 1u);
  BOOST_TEST(models[0].window->id == "member-hourly");
  const auto tools = countersFor(quotas, subject, kNow, catalog::QuotaUnit::ToolCalls);
  BOOST_REQUIRE(tools.size() == 1u);
  BOOST_TEST(tools[0].window->id == "tool-calls");
  BOOST_TEST(countersFor(quotas, subject, kNow).size() == 2u);  // every window (catalog explain)
  QuotaUsage used;
  used.requests = 1;
  BOOST_TEST(!checkCounter(tools[0], used, 0).has_value());
  used.requests = 2;
  const auto breach = checkCounter(tools[0], used, 0);
  BOOST_REQUIRE(breach.has_value());
  BOOST_TEST((breach->measure == QuotaMeasure::ToolCalls));
  BOOST_TEST(breach->message().find("2 of 2 tool calls used") != std::string::npos, breach->message());
}

BOOST_AUTO_TEST_CASE(check_finds_the_first_spent_measure) {
  catalog::QuotaWindow w = window("member-hourly", catalog::QuotaScope::User, 3600);
  w.max_requests = 10;
  w.max_input_tokens = 1000;
  w.max_output_tokens = 500;
  w.max_cost_microdollars = 20'000'000;
  QuotaCounter counter;
  counter.window = &w;
  counter.scope_kind = "user";
  counter.scope_value = "alice";
  counter.span = windowSpan(3600, kNow);
  const auto used = [](int64_t r, int64_t in, int64_t out, int64_t cost) {
    QuotaUsage u;
    u.requests = r;
    u.input_tokens = in;
    u.output_tokens = out;
    u.cost_microdollars = cost;
    return u;
  };
  BOOST_TEST(!checkCounter(counter, used(9, 0, 0, 0), 0).has_value());
  const auto requests = checkCounter(counter, used(10, 0, 0, 0), 0);
  BOOST_REQUIRE(requests.has_value());
  BOOST_TEST(toString(requests->measure) == "requests");
  BOOST_TEST(requests->limit == 10);
  BOOST_TEST(requests->used == 10);
  BOOST_TEST(formatUtc(requests->resets_at) == formatUtc(counter.span.end));
  BOOST_TEST(requests->message() == "quota 'member-hourly' exceeded for user alice: 10 of 10 requests used; resets at " +
                                        formatUtc(counter.span.end));
  // Input tokens: the estimate must fit.
  BOOST_TEST(!checkCounter(counter, used(0, 900, 0, 0), 100).has_value());
  BOOST_TEST(toString(checkCounter(counter, used(0, 900, 0, 0), 101)->measure) == "input_tokens");
  BOOST_TEST(toString(checkCounter(counter, used(0, 0, 500, 0), 0)->measure) == "output_tokens");
  const auto cost = checkCounter(counter, used(0, 0, 0, 20'000'000), 0);
  BOOST_TEST(toString(cost->measure) == "cost");
  BOOST_TEST(cost->message().find("$20.00 of $20.00 spent") != std::string::npos, cost->message());
  // Requests are checked first.
  BOOST_TEST(toString(checkCounter(counter, used(10, 5000, 5000, 99'000'000), 0)->measure) == "requests");
}

BOOST_AUTO_TEST_CASE(retry_after_counts_whole_seconds_to_the_reset) {
  QuotaBreach breach;
  breach.resets_at = utc(2026, 11, 29, 22);
  BOOST_TEST(breach.retryAfterSeconds(utc(2026, 11, 29, 21, 59, 30) + milliseconds(100)) == 30);
  BOOST_TEST(breach.retryAfterSeconds(utc(2026, 11, 29, 22, 0, 5)) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
