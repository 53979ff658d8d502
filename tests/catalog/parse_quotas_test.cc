// gateway.quotas beyond one limit for everyone: per-subject overrides, per-group windows, calendar
// periods in a time zone, and a window's own mode.
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::at;
using testing::atIn;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

constexpr std::string_view kMonthly = "      - { id: project-monthly, per: project, seconds: 2592000, max_cost_usd: 2000 }\n";

// The baseline with its project window replaced by `window` (block YAML, indented for the list).
CatalogSources withWindow(std::string_view window) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, kMonthly, window);
  return sources;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parse_quotas)

BOOST_AUTO_TEST_CASE(a_finance_budget_reads_as_a_default_and_overrides_per_subject) {
  auto catalog = compileClean(withWindow(R"(      - id: budget
        per: api_key
        period: month
        timezone: Europe/Paris
        mode: enforce
        max_cost_usd: 100
        overrides:
          project/research: { max_cost_usd: 5000 }
          project/marketing: { max_cost_usd: 500 }
          group/interns: { max_cost_usd: 20 }
          member/ceo: unlimited
          key/Ab3dE6gH: { max_requests: 10 }
)"));
  const QuotaWindow& budget = catalog->quotas.windows[1];
  BOOST_TEST((budget.period == QuotaPeriod::Month));
  BOOST_TEST(budget.timezone == "Europe/Paris");
  BOOST_TEST(budget.seconds == 0);
  BOOST_TEST((budget.mode == QuotaMode::Enforce));
  BOOST_TEST(budget.max_cost_microdollars.value_or(0) == 100'000'000);
  BOOST_REQUIRE(budget.overrides.size() == 5u);
  BOOST_TEST((budget.overrides[0].kind == QuotaSubjectKind::Project));
  BOOST_TEST(budget.overrides[0].name == "research");
  BOOST_TEST(budget.overrides[0].limits.max_cost_microdollars.value_or(0) == 5'000'000'000);
  BOOST_TEST((budget.overrides[2].kind == QuotaSubjectKind::Group));
  BOOST_TEST((budget.overrides[3].kind == QuotaSubjectKind::Member));
  BOOST_TEST(budget.overrides[3].limits.unlimited());
  BOOST_TEST((budget.overrides[4].kind == QuotaSubjectKind::Key));
  BOOST_TEST(budget.overrides[4].limits.max_requests.value_or(0) == 10);
}

BOOST_AUTO_TEST_CASE(a_window_of_overrides_only_leaves_everyone_else_unlimited) {
  auto catalog = compileClean(withWindow(
      "      - { id: teams, per: group, period: week, overrides: { group/interns: { max_cost_usd: 20 } } }\n"));
  const QuotaWindow& teams = catalog->quotas.windows[1];
  BOOST_TEST((teams.per == QuotaScope::Group));
  BOOST_TEST(teams.timezone == "UTC");
  BOOST_TEST(teams.unlimited());
  BOOST_TEST(!teams.mode.has_value());
}

BOOST_AUTO_TEST_CASE(a_window_has_seconds_or_a_period_never_both) {
  CatalogSources sources = withWindow("      - { id: budget, per: project, seconds: 3600, period: month, max_requests: 5 }\n");
  expectError(compileCatalog(sources), at(sources.gateway, "period: month"),
              "quota window 'budget' has both seconds and period; a window has one or the other");
}

BOOST_AUTO_TEST_CASE(a_period_is_a_day_a_week_or_a_month) {
  CatalogSources sources = withWindow("      - { id: budget, per: project, period: quarter, max_requests: 5 }\n");
  expectError(compileCatalog(sources), at(sources.gateway, "quarter"),
              "period of quota window 'budget' must be one of: day, week, month; got 'quarter'");
}

BOOST_AUTO_TEST_CASE(a_timezone_is_an_iana_name_and_only_for_a_period) {
  CatalogSources sources = withWindow("      - { id: budget, per: project, period: day, timezone: ../../etc/passwd, max_requests: 5 }\n");
  expectError(compileCatalog(sources), at(sources.gateway, "../../etc/passwd"),
              "timezone of quota window 'budget' must be an IANA name such as Europe/Paris or UTC, got '../../etc/passwd'");
  CatalogSources rolling = withWindow("      - { id: budget, per: project, seconds: 3600, timezone: UTC, max_requests: 5 }\n");
  expectError(compileCatalog(rolling), at(rolling.gateway, "timezone: UTC"),
              "timezone of quota window 'budget' applies to a period, not to seconds");
}

BOOST_AUTO_TEST_CASE(an_override_names_a_kind_and_a_subject_and_sets_limits) {
  CatalogSources sources = withWindow(R"(      - id: budget
        per: user
        period: month
        max_cost_usd: 100
        overrides:
          team/research: { max_cost_usd: 5000 }
          project/marketing: { max_cost: 500 }
          group/interns: {}
          member/ceo: generous
)");
  const auto result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "team/research"),
              "override 'team/research' of quota window 'budget' must name project/NAME, group/NAME, member/NAME or key/ID");
  expectError(result, at(sources.gateway, "max_cost:"), "unknown key 'max_cost' in override 'project/marketing'");
  expectError(result, at(sources.gateway, "{}"),
              "override 'group/interns' of quota window 'budget' needs at least one of max_requests");
  expectError(result, at(sources.gateway, "generous"),
              "override 'member/ceo' of quota window 'budget' must be unlimited or a mapping of limits");
}

BOOST_AUTO_TEST_CASE(an_override_that_could_never_apply_to_the_windows_counters_is_refused) {
  // A project's counter has one limit whoever calls, so a member's override there would be ignored.
  CatalogSources project = withWindow(R"(      - id: budget
        per: project
        period: month
        overrides:
          project/research: { max_cost_usd: 5000 }
          member/ceo: unlimited
)");
  expectError(compileCatalog(project), at(project.gateway, "member/ceo"),
              "override 'member/ceo' of quota window 'budget' never applies: a per: project window's counters "
              "are projects; name project/NAME");
  CatalogSources members = withWindow(
      "      - { id: budget, per: user, period: day, overrides: { group/interns: { max_requests: 5 }, key/Ab3dE6gH: unlimited } }\n");
  expectError(compileCatalog(members), at(members.gateway, "key/Ab3dE6gH"),
              "override 'key/Ab3dE6gH' of quota window 'budget' never applies: a per: user window counts members");
  CatalogSources everyone = withWindow(
      "      - { id: budget, per: organisation, period: day, overrides: { project/research: unlimited } }\n");
  expectError(compileCatalog(everyone), at(everyone.gateway, "project/research"),
              "a per: organisation window has one counter; set its max_ limits instead");
}

BOOST_AUTO_TEST_CASE(a_window_without_limits_or_overrides_is_refused) {
  CatalogSources sources = withWindow("      - { id: budget, per: project, period: month }\n");
  expectError(compileCatalog(sources), atIn(sources.gateway, "- { id: budget", "{"),
              "quota window 'budget' needs at least one of max_requests, max_input_tokens, max_output_tokens, "
              "max_cost_usd, max_tool_calls, or overrides");
}

BOOST_AUTO_TEST_CASE(max_tool_calls_makes_a_tool_calls_window) {
  auto catalog = compileClean(withWindow(R"(      - { id: tools, per: user, seconds: 3600, max_tool_calls: 500 }
      - { id: tools-explicit, per: project, period: day, unit: tool_calls, overrides: { project/research: { max_tool_calls: 9 } } }
)"));
  const auto& windows = catalog->quotas.windows;
  const auto find = [&](std::string_view id) {
    return std::ranges::find_if(windows, [&](const QuotaWindow& w) { return w.id == id; });
  };
  BOOST_REQUIRE(find("tools") != windows.end());
  BOOST_TEST((find("tools")->unit == QuotaUnit::ToolCalls));
  BOOST_TEST(find("tools")->max_tool_calls.value_or(0) == 500);
  BOOST_TEST((find("tools-explicit")->unit == QuotaUnit::ToolCalls));
  BOOST_TEST(find("tools-explicit")->overrides.at(0).limits.max_tool_calls.value_or(0) == 9);
  BOOST_TEST((find("member-hourly") == windows.end() || find("member-hourly")->unit == QuotaUnit::Requests));
}

BOOST_AUTO_TEST_CASE(a_window_counts_model_requests_or_tool_calls_not_both) {
  {
    CatalogSources sources = withWindow("      - { id: mixed, per: user, seconds: 3600, max_requests: 5, max_tool_calls: 5 }\n");
    expectError(compileCatalog(sources), atIn(sources.gateway, "- { id: mixed", "id"),
                "quota window 'mixed' counts tool calls: its limits (and its overrides') are max_tool_calls only");
  }
  {
    CatalogSources sources =
        withWindow("      - { id: models, per: user, seconds: 3600, unit: requests, max_tool_calls: 5 }\n");
    expectError(compileCatalog(sources), atIn(sources.gateway, "- { id: models", "requests"),
                "quota window 'models' counts model requests: max_tool_calls needs a window of its own");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::catalog
