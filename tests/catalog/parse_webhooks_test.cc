// gateway.webhooks and a quota window's alerts: what finance writes to be told "80 % spent".
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

constexpr std::string_view kMonthly = "      - { id: project-monthly, per: project, seconds: 2592000, max_cost_usd: 2000 }\n";
constexpr std::string_view kQuotas = "  quotas:\n";

// The baseline with `webhooks` (block YAML under gateway:) and its project window replaced by `window`.
CatalogSources withAlerts(std::string_view webhooks, std::string_view window) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, kMonthly, window);
  edit(sources.gateway, kQuotas, std::string(webhooks) + std::string(kQuotas));
  sources.env["FINANCE_HOOK_SECRET"] = "s3cret-finance-key";
  return sources;
}

constexpr std::string_view kFinance = R"(  webhooks:
    finance: { url: "https://hooks.example.test/finance?token=abc", format: json, secret: env:FINANCE_HOOK_SECRET }
    chat: { url: "https://hooks.slack.example.test/services/T0/B0/XYZ", format: slack }
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(parse_webhooks)

BOOST_AUTO_TEST_CASE(a_budget_alert_names_a_declared_webhook_and_a_percentage) {
  auto catalog = compileClean(withAlerts(kFinance, R"(      - id: budget
        per: project
        period: month
        max_cost_usd: 500
        overrides: { project/research: { max_cost_usd: 5000 } }
        alerts:
          - { at: 100%, notify: webhook/chat }
          - { at: 80%, notify: webhook/finance }
          - { at: 50, notify: webhook/finance }
)"));
  BOOST_REQUIRE(catalog->webhooks.size() == 2u);
  const Webhook* finance = catalog->webhook("finance");
  BOOST_REQUIRE(finance != nullptr);
  BOOST_TEST((finance->format == WebhookFormat::Json));
  BOOST_TEST(finance->secret == "s3cret-finance-key");
  BOOST_TEST(finance->url == "https://hooks.example.test/finance?token=abc");
  BOOST_TEST((catalog->webhook("chat")->format == WebhookFormat::Slack));
  const QuotaWindow& budget = catalog->quotas.windows[1];
  BOOST_REQUIRE(budget.alerts.size() == 3u);
  BOOST_TEST(budget.alerts[0].percent == 50);  // ascending
  BOOST_TEST(budget.alerts[1].percent == 80);
  BOOST_TEST(budget.alerts[1].webhook == "finance");
  BOOST_TEST(budget.alerts[2].webhook == "chat");
}

BOOST_AUTO_TEST_CASE(an_alert_to_an_undeclared_webhook_is_refused_with_the_nearest_name) {
  CatalogSources sources = withAlerts(kFinance,
      "      - { id: budget, per: project, period: month, max_cost_usd: 500, alerts: [{ at: 80%, notify: webhook/finanse }] }\n");
  expectError(compileCatalog(sources), at(sources.gateway, "webhook/finanse"),
              "alert of quota window 'budget' notifies unknown webhook 'finanse'; declare it under gateway.webhooks; "
              "did you mean 'finance'?");
}

BOOST_AUTO_TEST_CASE(an_alert_threshold_is_a_percentage_from_1_to_100) {
  for (std::string_view bad : {"0%", "101%", "eighty", "-5", "80.5%"}) {
    CatalogSources sources = withAlerts(kFinance, "      - { id: budget, per: project, period: month, max_cost_usd: 500, "
                                                  "alerts: [{ at: \"" + std::string(bad) + "\", notify: webhook/finance }] }\n");
    expectError(compileCatalog(sources), at(sources.gateway, "\"" + std::string(bad) + "\""),
                "at of alert #1 of quota window 'budget' must be a percentage from 1% to 100% of the limit");
  }
  CatalogSources target = withAlerts(kFinance,
      "      - { id: budget, per: project, period: month, max_cost_usd: 500, alerts: [{ at: 80%, notify: finance }] }\n");
  expectError(compileCatalog(target), at(target.gateway, "finance }"),
              "notify of alert #1 of quota window 'budget' must be webhook/NAME");
}

BOOST_AUTO_TEST_CASE(a_json_webhook_needs_a_secret_and_the_secret_is_never_in_a_message) {
  CatalogSources unsigned_hook = withAlerts("  webhooks:\n    finance: { url: \"https://hooks.example.test/f\" }\n",
      "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  expectError(compileCatalog(unsigned_hook), at(unsigned_hook.gateway, "finance:"),
              "webhook 'finance' of format json needs secret: env:NAME");
  CatalogSources written = withAlerts(
      "  webhooks:\n    finance: { url: \"https://hooks.example.test/f\", secret: hunter2-literal }\n",
      "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  const CompileResult result = compileCatalog(written);
  expectError(result, at(written.gateway, "hunter2-literal"),
              "secret of webhook 'finance' must be env:NAME or file:PATH; secrets are never written in the catalog");
  for (const Diagnostic& diagnostic : result.diagnostics) BOOST_TEST(diagnostic.message.find("hunter2") == std::string::npos);
  CatalogSources unset = withAlerts(
      "  webhooks:\n    finance: { url: \"https://hooks.example.test/f\", secret: env:NOT_SET_ANYWHERE }\n",
      "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  expectError(compileCatalog(unset), at(unset.gateway, "env:NOT_SET_ANYWHERE"),
              "secret of webhook 'finance': environment variable NOT_SET_ANYWHERE is not set or empty");
}

BOOST_AUTO_TEST_CASE(a_webhook_secrets_variable_cannot_be_read_by_a_catalog_string) {
  CatalogSources sources = withAlerts(kFinance, "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: \"${FINANCE_HOOK_SECRET}\"\n");
  const CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  bool refused = false;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    refused = refused || diagnostic.message.find("secret variable FINANCE_HOOK_SECRET used outside a credential") != std::string::npos;
    BOOST_TEST(diagnostic.message.find("s3cret-finance-key") == std::string::npos);
  }
  BOOST_TEST(refused);
}

BOOST_AUTO_TEST_CASE(a_webhook_url_is_http_and_its_query_string_is_never_in_a_message) {
  CatalogSources sources = withAlerts(
      "  webhooks:\n    chat: { url: \"ftp://hooks.example.test/x?token=leak-me\", format: teams }\n",
      "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  const CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "\"ftp://"), "url of webhook 'chat' must be an http:// or https:// URL");
  for (const Diagnostic& diagnostic : result.diagnostics) BOOST_TEST(diagnostic.message.find("leak-me") == std::string::npos);
  CatalogSources format = withAlerts(
      "  webhooks:\n    chat: { url: \"https://hooks.example.test/x\", format: discord }\n",
      "      - { id: budget, per: project, period: month, max_cost_usd: 500 }\n");
  expectError(compileCatalog(format), at(format.gateway, "discord"),
              "format of webhook 'chat' must be one of: slack, teams, json; got 'discord'");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::catalog
