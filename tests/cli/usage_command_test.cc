// `sluicectl usage` over dates: the real binary against a scratch PostgreSQL holding audit rows on
// known days (yesterday, today, the day before), asked who spent the most yesterday, over an exact
// range, per group and per key, as a table, CSV and JSON, and with bad dates.

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/audit/fields.h"
#include "server/store/audit_store.h"
#include "server/store/usage_range.h"
#include "tests/server/store/scratch_database.h"
#include "tests/cli/sluicectl_run.h"

using namespace sluice;
using namespace std::chrono;

namespace {

test::ScratchDatabase& database() {
  static test::ScratchDatabase instance(true);
  return instance;
}

test::SluicectlRun usage(std::vector<std::string> args) {
  args.insert(args.begin(), "usage");
  args.push_back("--database-url");
  args.push_back(database().url());
  return test::runSluicectl(std::move(args));
}

using test::squeeze;

const sys_days kToday = floor<days>(system_clock::now());
const sys_days kYesterday = kToday - days(1);

std::string date(sys_days day) { return store::formatTimestamp(day).substr(0, 10); }

nlohmann::json spend(int n, system_clock::time_point at, const std::string& user, const std::string& project,
                     int64_t cost) {
  return {{"id", "0193a000-0000-7000-8000-" + std::string(12 - std::to_string(n).size(), '0') + std::to_string(n)},
          {"created_at", store::formatTimestamp(at)},
          {"completed_at", store::formatTimestamp(at)},
          {"user_name", user},
          {"api_key_id", user.substr(0, 4) + "0001"},
          {"project", project},
          {"requested_model", "gpt-4.1"},
          {"model", "gpt-4.1"},
          {"served_provider", "openai"},
          {"status", 200},
          {"outcome", "ok"},
          {"input_tokens", 100},
          {"output_tokens", 10},
          {"cost_microdollars", cost}};
}

// Yesterday: dave $4.00, erin $1.50 + $1.00 (the last at 23:59:59.5), frank $0.25 with no member
// row. Today (just after midnight) frank $9.00; the day before, grace $20.00: neither is yesterday.
void seed() {
  static bool seeded = false;
  if (seeded) return;
  seeded = true;
  auto connection = database().connect();
  store::ensureAuditPartitions(*connection, kYesterday - days(1), kToday);
  pqxx::work work(*connection);
  work.exec("INSERT INTO members (name, role, groups) VALUES ('dave', 'member', '{research}'), "
            "('erin', 'member', '{research,interns}'), ('grace', 'member', '{}')");
  work.commit();
  store::insertAuditRows(
      *connection, audit::auditColumns(),
      nlohmann::json::array({spend(1, kYesterday + hours(9) + minutes(15), "dave", "research", 4'000'000),
                             spend(2, kYesterday + hours(9) + minutes(20), "erin", "=HYPERLINK(\"http://x\")", 1'500'000),
                             spend(3, kYesterday + hours(15), "frank", "research", 250'000),
                             spend(4, kYesterday + hours(24) - milliseconds(500), "erin", "research", 1'000'000),
                             spend(5, kToday + milliseconds(500), "frank", "research", 9'000'000),
                             spend(6, kYesterday - hours(12), "grace", "research", 20'000'000)})
          .dump());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(usage_by_date)

BOOST_AUTO_TEST_CASE(since_yesterday_top_names_who_spent_the_most_yesterday) {
  seed();
  const auto run = usage({"--since", "yesterday", "--top", "2", "--by", "member"});
  BOOST_TEST(run.code == 0, run.err);
  const std::string text = squeeze(run.out);
  BOOST_TEST(text.find("from " + date(kYesterday) + " 00:00 to " + date(kToday) + " 00:00 UTC") != std::string::npos,
             run.out);
  BOOST_TEST(text.find("top 2 of 3") != std::string::npos, run.out);
  BOOST_TEST(text.find("MEMBER REQUESTS") != std::string::npos, run.out);
  BOOST_TEST(text.find("dave 1 0 100 10 0 0 0 $4.00") != std::string::npos, run.out);
  BOOST_TEST(text.find("erin 2 0 200 20 0 0 0 $2.50") != std::string::npos, run.out);
  BOOST_TEST(text.find("dave") < text.find("erin"));
  BOOST_TEST(text.find("frank") == std::string::npos, run.out);  // third, below the top 2
  BOOST_TEST(text.find("grace") == std::string::npos, run.out);
  BOOST_TEST(text.find("TOTAL 4 0 400 40 0 0 0 $6.75") != std::string::npos, run.out);  // all of yesterday

  const auto json = usage({"--since", "yesterday", "--by", "member", "--format", "json"});
  BOOST_TEST(json.code == 0, json.err);
  const auto report = nlohmann::json::parse(json.out);
  BOOST_REQUIRE(report["rows"].size() == 3u);
  BOOST_TEST(report["rows"][0]["member"] == "dave");
  BOOST_TEST(report["rows"][2]["member"] == "frank");
  BOOST_TEST(report["rows"][2]["cost_microdollars"] == 250'000);
  BOOST_TEST(report["until"] == store::formatTimestamp(kToday));
  BOOST_TEST(report["total"]["cost_microdollars"] == 6'750'000);
}

BOOST_AUTO_TEST_CASE(from_until_counts_exactly_the_requests_inside_the_range) {
  seed();
  // 09:17 to 23:59:59 yesterday: erin's 09:20 and frank's 15:00, not dave's 09:15 or erin's 23:59:59.5.
  const auto run = usage({"--from", date(kYesterday) + "T09:17Z", "--until", date(kYesterday) + "T23:59:59Z",
                          "--by", "member", "--json"});
  BOOST_TEST(run.code == 0, run.err);
  const auto report = nlohmann::json::parse(run.out);
  BOOST_REQUIRE(report["rows"].size() == 2u);
  BOOST_TEST(report["rows"][0]["member"] == "erin");
  BOOST_TEST(report["rows"][0]["cost_microdollars"] == 1'500'000);
  BOOST_TEST(report["rows"][1]["member"] == "frank");
  // Whole days: the day before yesterday to today's midnight holds grace's $20 too, not frank's today.
  const auto days = usage({"--from", date(kYesterday - std::chrono::days(1)), "--until", date(kToday), "--json"});
  BOOST_TEST(nlohmann::json::parse(days.out)["total"]["cost_microdollars"] == 26'750'000);
  // Ragged at both ends: raw rows, hourly rollup, daily rollup, raw rows again. Grace's 12:00 the
  // day before yesterday is in (after 11:30); frank's 00:00:00.5 today is in (before 00:00:01).
  const auto ragged = usage({"--from", date(kYesterday - std::chrono::days(1)) + "T11:30Z", "--until",
                             date(kToday) + "T00:00:01Z", "--json"});
  BOOST_TEST(nlohmann::json::parse(ragged.out)["total"]["cost_microdollars"] == 35'750'000);
  const auto today = usage({"--since", "today", "--json"});
  BOOST_TEST(nlohmann::json::parse(today.out)["total"]["cost_microdollars"] == 9'000'000);
}

BOOST_AUTO_TEST_CASE(spend_by_group_and_by_key) {
  seed();
  const auto groups = usage({"--since", "yesterday", "--by", "group", "--format", "csv"});
  BOOST_TEST(groups.code == 0, groups.err);
  BOOST_TEST(groups.out.starts_with("group,requests,failed,"), groups.out);
  // research: dave 4.00 + erin 2.50; interns: erin 2.50; frank has no member row and no group.
  BOOST_TEST(groups.out.find("\r\nresearch,3,0,300,30,0,0,0,6500000,") != std::string::npos, groups.out);
  BOOST_TEST(groups.out.find("\r\ninterns,2,0,200,20,0,0,0,2500000,") != std::string::npos, groups.out);
  BOOST_TEST(groups.out.find("\r\n,1,0,100,10,0,0,0,250000,") != std::string::npos, groups.out);
  const auto keys = usage({"--since", "yesterday", "--by", "key", "--json"});
  const auto report = nlohmann::json::parse(keys.out);
  BOOST_TEST(report["rows"][0]["key"] == "dave0001");
  BOOST_TEST(report["rows"][1]["key"] == "erin0001");
}

BOOST_AUTO_TEST_CASE(csv_never_hands_a_spreadsheet_a_formula) {
  seed();
  const auto run = usage({"--since", "yesterday", "--by", "project", "--csv"});
  BOOST_TEST(run.code == 0, run.err);
  BOOST_TEST(run.out.find("\r\n\"'=HYPERLINK(\"\"http://x\"\")\",1,0,") != std::string::npos, run.out);
  BOOST_TEST(run.out.find("\r\n=") == std::string::npos, run.out);
}

// --timezone moves the calendar: yesterday's date in Los Angeles (UTC-8 in December) runs from
// 08:00 UTC to 08:00 UTC, so frank's spend just after midnight UTC today counts and grace's does not.
BOOST_AUTO_TEST_CASE(a_timezone_moves_the_days_the_question_asks_about) {
  seed();
  const std::vector<std::string> args = {"--from", date(kYesterday), "--until", date(kToday), "--timezone",
                                         "America/Los_Angeles", "--by", "member"};
  const auto run = usage(args);
  BOOST_TEST(run.code == 0, run.err);
  const std::string text = squeeze(run.out);
  BOOST_TEST(text.find("from " + date(kYesterday) + " 00:00 to " + date(kToday) + " 00:00 America/Los_Angeles") !=
                 std::string::npos,
             run.out);
  BOOST_TEST(text.find("frank 2 0 200 20 0 0 0 $9.25") != std::string::npos, run.out);
  BOOST_TEST(text.find("frank") < text.find("dave"), run.out);
  BOOST_TEST(text.find("grace") == std::string::npos, run.out);
  BOOST_TEST(text.find("TOTAL 5 0 500 50 0 0 0 $15.75") != std::string::npos, run.out);
  std::vector<std::string> as_json = args;
  as_json.insert(as_json.end(), {"--format", "json"});
  const auto json = nlohmann::json::parse(usage(as_json).out);
  BOOST_TEST(json["timezone"] == "America/Los_Angeles");
  BOOST_TEST(json["since"].get<std::string>().starts_with(date(kYesterday) + "T08:00:00"), json.dump());
  // A named period follows the same calendar (its dates depend on the hour the test runs).
  const auto named = usage({"--since", "yesterday", "--timezone", "Asia/Tokyo"});
  BOOST_TEST(named.code == 0, named.err);
  BOOST_TEST(named.out.find(" 00:00 Asia/Tokyo (console probes excluded)") != std::string::npos, named.out);

  const auto unknown = usage({"--timezone", "Mars/Olympus_Mons"});
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(unknown.err.find("--timezone 'Mars/Olympus_Mons': no such zone") != std::string::npos, unknown.err);
  const auto escape = usage({"--timezone", "../../etc/passwd"});
  BOOST_TEST(escape.code == 2);
  BOOST_TEST(escape.err.find("not an IANA time zone name") != std::string::npos, escape.err);
}

BOOST_AUTO_TEST_CASE(bad_dates_and_ranges_exit_2_with_a_clear_message) {
  const auto month = usage({"--from", "2026-13-01"});
  BOOST_TEST(month.code == 2);
  BOOST_TEST(month.err == "sluicectl: --from 2026-13-01: month 13 does not exist\n");
  const auto backwards = usage({"--from", "2026-12-03", "--until", "2026-12-02"});
  BOOST_TEST(backwards.code == 2);
  BOOST_TEST(backwards.err.find("--until 2026-12-02 00:00 is not after the start 2026-12-03 00:00 UTC") !=
                 std::string::npos,
             backwards.err);
  BOOST_TEST(usage({"--since", "tomorrow"}).err.find("--since 'tomorrow': expected today, yesterday") !=
             std::string::npos);
  BOOST_TEST(usage({"--top", "-1"}).code == 2);
  BOOST_TEST(usage({"--by", "colour"}).code == 2);
  BOOST_TEST(usage({"--format", "xml"}).code == 2);
  BOOST_TEST(usage({"--format", "csv", "--json"}).code == 2);
}

BOOST_AUTO_TEST_SUITE_END()
