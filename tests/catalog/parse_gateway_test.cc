#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::atIn;
using testing::baselineSources;
using testing::compileClean;
using testing::dump;
using testing::edit;
using testing::expectError;

constexpr std::string_view kHub = "\n  presence: { url: \"http://hub.internal:7070/\", poll_ms: 500, stale_ms: 2000 }\n";
constexpr std::string_view kOwnEndpoint = "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1 }";

BOOST_AUTO_TEST_SUITE(parse_gateway)

BOOST_AUTO_TEST_CASE(route_fields_are_read) {
  CatalogSources sources = baselineSources();
  auto catalog = compileClean(sources);
  const Route* pool = catalog->route("fast-pool");
  BOOST_TEST(pool->label == "fast-pool");
  BOOST_TEST(pool->strategy == Strategy::Weighted);
  BOOST_REQUIRE(pool->deployments.size() == 2u);
  BOOST_TEST(pool->deployments[0].endpoint_key == "deepseek/api");
  BOOST_TEST(pool->deployments[0].weight == 3);
  BOOST_TEST(pool->deployments[1].endpoint_key == "deepseek-eu/api");
  BOOST_TEST(pool->deployments[1].weight == 1);
  BOOST_TEST(pool->context_fallbacks == std::vector<std::string>{"claude-sonnet-5-5"});
  BOOST_TEST(pool->requirements.no_retain);
  BOOST_TEST(!pool->requirements.european);
  BOOST_TEST(!pool->scope_project.has_value());
  BOOST_TEST(pool->where.line == at(sources.gateway, "id: fast-pool").line);

  const Route* alias = catalog->route("go-deepseek-v4-pro");
  BOOST_TEST(alias->label == "DeepSeek V4 Pro on your own Go key");
  BOOST_TEST(alias->strategy == Strategy::Ordered);
  BOOST_TEST(alias->deployments[0].weight == 1);
  BOOST_TEST(catalog->route("project-odoo-delivery")->scope_project.value_or("") == "odoo-delivery");
}

BOOST_AUTO_TEST_CASE(quotas_are_read_with_costs_in_microdollars) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->quotas.mode == QuotaMode::Warn);
  BOOST_REQUIRE(catalog->quotas.windows.size() == 2u);
  const QuotaWindow& hourly = catalog->quotas.windows[0];
  BOOST_TEST(hourly.id == "member-hourly");
  BOOST_TEST(hourly.per == QuotaScope::User);
  BOOST_TEST(hourly.seconds == 3600);
  BOOST_TEST(hourly.max_requests.value_or(0) == 600);
  BOOST_TEST(hourly.max_cost_microdollars.value_or(0) == 20'000'000);
  BOOST_TEST(!hourly.max_input_tokens.has_value());
  const QuotaWindow& monthly = catalog->quotas.windows[1];
  BOOST_TEST(monthly.per == QuotaScope::Project);
  BOOST_TEST(monthly.max_cost_microdollars.value_or(0) == 2'000'000'000);
  BOOST_TEST(!monthly.max_requests.has_value());
}

BOOST_AUTO_TEST_CASE(enforce_mode_and_token_limits_are_read) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "mode: warn", "mode: enforce");
  edit(sources.gateway, "per: project, seconds: 2592000, max_cost_usd: 2000",
       "per: api_key, seconds: 2678400, max_input_tokens: 5000000, max_output_tokens: 100000");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->quotas.mode == QuotaMode::Enforce);
  const QuotaWindow& window = catalog->quotas.windows[1];
  BOOST_TEST(window.per == QuotaScope::ApiKey);
  BOOST_TEST(window.max_input_tokens.value_or(0) == 5'000'000);
  BOOST_TEST(window.max_output_tokens.value_or(0) == 100'000);
}

BOOST_AUTO_TEST_CASE(gateway_without_routes_or_quotas_is_fine) {
  CatalogSources sources = baselineSources();
  sources.gateway->text = "gateway:\n  default_model: claude-haiku-5\n";
  sources.access_rules.reset();
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->routes.size() == catalog->models.size());
  BOOST_TEST(catalog->quotas.windows.empty());
}

BOOST_AUTO_TEST_CASE(default_model_is_required) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "");
  expectError(compileCatalog(sources), at(sources.gateway, "gateway:"), "gateway needs default_model");
}

BOOST_AUTO_TEST_CASE(unknown_gateway_key_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  quotas:\n", "  quota:\n");
  expectError(compileCatalog(sources), at(sources.gateway, "quota:"),
              "unknown key 'quota' in gateway; expected one of: default_model, routes, quotas, identity, trusted_proxies, "
              "ad_hoc_chains, presence, data_protection, limits, webhooks, telemetry, console (did you mean 'quotas'?)");
}

BOOST_AUTO_TEST_CASE(telemetry_trace_url_and_audit_logs_are_read_and_linked) {
  CatalogSources sources = baselineSources();
  append(sources.gateway,
         "  telemetry:\n    audit_logs: true\n    trace_url: \"https://grafana.example/explore?t={trace_id}&again={trace_id}\"\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->telemetry.audit_logs);
  const std::string id = "4bf92f3577b34da6a3ce929d0e0e4736";
  BOOST_TEST(traceLink(catalog->telemetry, id) == "https://grafana.example/explore?t=" + id + "&again=" + id);
  // An id that is not 32 lowercase hex digits never goes into a link.
  BOOST_TEST(traceLink(catalog->telemetry, "4bf92f3577b34da6a3ce929d0e0e473\"").empty());
  BOOST_TEST(traceLink(catalog->telemetry, "4BF92F3577B34DA6A3CE929D0E0E4736").empty());
  BOOST_TEST(traceLink(TelemetrySettings{}, id).empty());
  BOOST_TEST(!compileClean(baselineSources())->telemetry.audit_logs);
}

BOOST_AUTO_TEST_CASE(a_trace_url_without_its_placeholder_or_scheme_is_refused) {
  CatalogSources sources = baselineSources();
  append(sources.gateway, "  telemetry: { trace_url: \"https://jaeger.example/trace/\" }\n");
  expectError(compileCatalog(sources), at(sources.gateway, "\"https://jaeger.example/trace/\""),
              "trace_url of telemetry needs {trace_id} where the trace id goes, e.g. "
              "https://jaeger.example.com/trace/{trace_id}");
  CatalogSources javascript = baselineSources();
  append(javascript.gateway, "  telemetry: { trace_url: \"javascript:alert({trace_id})\" }\n");
  expectError(compileCatalog(javascript), at(javascript.gateway, "\"javascript:"),
              "trace_url of telemetry must be an http:// or https:// URL, e.g. "
              "https://grafana.example.com/explore?traceId={trace_id}");
}

BOOST_AUTO_TEST_CASE(route_needs_an_id) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "    - id: fast-pool\n      models:", "    - models:");
  expectError(compileCatalog(sources), atIn(sources.gateway, "- models: [deepseek-flash]", "models"),
              "route #3 needs id");
}

BOOST_AUTO_TEST_CASE(unknown_route_key_names_the_route) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "      strategy: weighted", "      stratgy: weighted");
  expectError(compileCatalog(sources), at(sources.gateway, "stratgy"),
              "unknown key 'stratgy' in route 'fast-pool'; expected one of: id, label, alias_of, alias, models, when, "
              "deployments, strategy, affinity, affinity_ttl_s, context_fallbacks, requires (did you mean 'strategy'?)");
}

BOOST_AUTO_TEST_CASE(strategy_must_be_known) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "strategy: weighted", "strategy: random");
  expectError(compileCatalog(sources), at(sources.gateway, "random"),
              "strategy of route 'fast-pool' must be one of: ordered, weighted, least_busy; got 'random'");
}

BOOST_AUTO_TEST_CASE(affinity_defaults_on_for_pools_and_can_be_declared) {
  CatalogSources sources = baselineSources();
  auto catalog = compileClean(sources);
  const auto* pool = catalog->route("fast-pool");
  BOOST_REQUIRE(pool != nullptr);
  BOOST_TEST(pool->affinity);  // weighted: on unless declared
  BOOST_TEST(pool->affinity_ttl_seconds == 0);
  BOOST_TEST(!catalog->route("claude-sonnet-5-5")->affinity);  // an implicit, ordered route

  edit(sources.gateway, "      strategy: weighted", "      strategy: weighted\n      affinity: none");
  BOOST_TEST(!compileClean(sources)->route("fast-pool")->affinity);
  edit(sources.gateway, "      affinity: none", "      affinity: conversation\n      affinity_ttl_s: 1800");
  auto declared = compileClean(sources);
  BOOST_TEST(declared->route("fast-pool")->affinity);
  BOOST_TEST(declared->route("fast-pool")->affinity_ttl_seconds == 1800);

  edit(sources.gateway, "affinity: conversation", "affinity: sticky");
  expectError(compileCatalog(sources), at(sources.gateway, "sticky"),
              "affinity of route 'fast-pool' must be one of: conversation, none; got 'sticky'");
}

BOOST_AUTO_TEST_CASE(weights_are_positive_integers) {
  for (std::string_view weight : {"0", "-1", "1.5", "heavy"}) {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "weight: 3 }", "weight: " + std::string(weight) + " }");
    expectError(compileCatalog(sources), atIn(sources.gateway, "endpoint: deepseek/api, weight: ", weight),
                "weight of 'deepseek/api' in route 'fast-pool' must be a positive integer, got '" + std::string(weight) + "'");
  }
}

BOOST_AUTO_TEST_CASE(route_deployment_mapping_needs_an_endpoint) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "{ endpoint: deepseek/api, weight: 3 }", "{ weight: 3 }");
  expectError(compileCatalog(sources), at(sources.gateway, "{ weight: 3 }"),
              "a deployment of route 'fast-pool' needs endpoint: provider/endpoint");
}

BOOST_AUTO_TEST_CASE(when_needs_a_project_scope) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "when: { scope: { project: odoo-delivery } }", "when: { scope: { team: odoo } }");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "team"),
              "unknown key 'team' in scope of route 'project-odoo-delivery'; expected one of: project");
  expectError(result, at(sources.gateway, "scope"), "scope of route 'project-odoo-delivery' needs project");
}

BOOST_AUTO_TEST_CASE(when_without_scope_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "when: { scope: { project: odoo-delivery } }", "when: {}");
  expectError(compileCatalog(sources), at(sources.gateway, "when"),
              "when of route 'project-odoo-delivery' needs scope: {project: ...}");
}

BOOST_AUTO_TEST_CASE(routes_must_be_a_list_of_mappings) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "    - id: go-deepseek-v4-pro\n", "    - just-a-string\n    - id: go-deepseek-v4-pro\n");
  expectError(compileCatalog(sources), at(sources.gateway, "just-a-string"),
              "route #1 must be a mapping, got 'just-a-string'");
}

BOOST_AUTO_TEST_CASE(requires_flags_are_booleans_and_known) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "requires: { no_retain: true }", "requires: { no_retain: true, gdpr: true }");
  expectError(compileCatalog(sources), at(sources.gateway, "gdpr"),
              "unknown key 'gdpr' in requires of route 'fast-pool'; expected one of: european, no_retain");
}

BOOST_AUTO_TEST_CASE(quota_window_per_must_be_known) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "per: user", "per: team");
  expectError(compileCatalog(sources), at(sources.gateway, "team"),
              "per of quota window 'member-hourly' must be one of: user, project, group, api_key, organisation; got 'team'");
}

BOOST_AUTO_TEST_CASE(quota_window_seconds_are_between_a_minute_and_31_days) {
  for (std::string_view seconds : {"59", "2678401", "0"}) {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "seconds: 3600", "seconds: " + std::string(seconds));
    expectError(compileCatalog(sources), atIn(sources.gateway, "seconds: ", seconds),
                "seconds of quota window 'member-hourly' must be an integer from 60 to 2678400, got '" +
                    std::string(seconds) + "'");
  }
}

BOOST_AUTO_TEST_CASE(quota_window_needs_at_least_one_limit) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, ", max_requests: 600, max_cost_usd: 20 }", " }");
  expectError(compileCatalog(sources), at(sources.gateway, "{ id: member-hourly"),
              "quota window 'member-hourly' needs at least one of max_requests, max_input_tokens, max_output_tokens, max_cost_usd");
}

BOOST_AUTO_TEST_CASE(quota_limits_must_be_positive) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "max_requests: 600", "max_requests: 0");
  edit(sources.gateway, "max_cost_usd: 2000", "max_cost_usd: 0");
  auto result = compileCatalog(sources);
  expectError(result, atIn(sources.gateway, "max_requests: 0", "0"),
              "max_requests of quota window 'member-hourly' must be a positive integer, got '0'");
  expectError(result, atIn(sources.gateway, "max_cost_usd: 0", "0"),
              "max_cost_usd of quota window 'project-monthly' must be a positive number of US dollars, got '0'");
}

BOOST_AUTO_TEST_CASE(quota_window_ids_are_unique) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "id: project-monthly", "id: member-hourly");
  expectError(compileCatalog(sources), at(sources.gateway, "id: member-hourly", 2),
              "duplicate quota window id 'member-hourly'; first defined at line " +
                  std::to_string(at(sources.gateway, "id: member-hourly").line));
}

BOOST_AUTO_TEST_CASE(quota_window_needs_id_per_and_seconds) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "{ id: member-hourly, per: user, seconds: 3600, ", "{ ");
  auto result = compileCatalog(sources);
  Location window = atIn(sources.gateway, "windows:", "{ max_requests");
  expectError(result, window, "quota window #1 needs id");
  expectError(result, window, "quota window #1 needs per: user, project, group, api_key or organisation");
  expectError(result, window, "quota window #1 needs seconds");
}

BOOST_AUTO_TEST_CASE(quota_mode_must_be_warn_or_enforce) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "mode: warn", "mode: block");
  expectError(compileCatalog(sources), at(sources.gateway, "block"),
              "mode of quotas must be one of: warn, enforce; got 'block'");
}

BOOST_AUTO_TEST_CASE(ad_hoc_chains_are_on_by_default_and_can_be_turned_off) {
  CatalogSources sources = baselineSources();
  BOOST_TEST(compileClean(sources)->ad_hoc_chains);
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  ad_hoc_chains: false\n");
  BOOST_TEST(!compileClean(sources)->ad_hoc_chains);
}
BOOST_AUTO_TEST_CASE(ad_hoc_chains_must_be_a_boolean) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  ad_hoc_chains: sometimes\n");
  expectError(compileCatalog(sources), at(sources.gateway, "sometimes"), "ad_hoc_chains");
}
BOOST_AUTO_TEST_CASE(an_unknown_gateway_key_is_still_an_error) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  adhoc_chains: true\n");
  expectError(compileCatalog(sources), at(sources.gateway, "adhoc_chains"), "adhoc_chains");
}
BOOST_AUTO_TEST_CASE(the_presence_hub_is_read_with_its_defaults) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
       "  default_model: claude-sonnet-5-5\n  presence: { url: \"http://hub.internal:7070/\" }\n");
  auto catalog = compileClean(sources);
  BOOST_REQUIRE(catalog->presence.has_value());
  BOOST_TEST(catalog->presence->url == "http://hub.internal:7070");
  BOOST_TEST(catalog->presence->poll_ms == 1500);
  BOOST_TEST(catalog->presence->stale_ms == 5000);
  BOOST_TEST(!compileClean(baselineSources())->presence.has_value());
}
BOOST_AUTO_TEST_CASE(presence_hub_errors_name_the_key) {
  {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  presence: { poll_ms: 500 }\n");
    expectError(compileCatalog(sources), at(sources.gateway, "presence"), "presence needs url");
  }
  {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  presence: { url: hub.internal }\n");
    expectError(compileCatalog(sources), at(sources.gateway, "hub.internal"), "url of presence must be a base URL");
  }
  {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
         "  default_model: claude-sonnet-5-5\n  presence: { url: \"http://hub\", poll_ms: 3000, stale_ms: 2000 }\n");
    expectError(compileCatalog(sources), at(sources.gateway, "2000"), "must be more than poll_ms");
  }
  {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
         "  default_model: claude-sonnet-5-5\n  presence: { url: \"http://hub\", interval: 3 }\n");
    expectError(compileCatalog(sources), at(sources.gateway, "interval"), "interval");
  }
}
BOOST_AUTO_TEST_CASE(presence_needs_a_hub_in_gateway_yaml) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat, presence: studio-1 }");
  expectError(compileCatalog(sources), at(sources.providers, "api: { wire: openai-chat, presence"),
              "declares no presence hub");
}

// gateway.data_protection

constexpr std::string_view kProtection = R"(  data_protection:
    mask: [email, api_key, private_key, password]
    vault: file:/etc/sluice/vault.txt
    restore: false
    block: [private_key]
)";

CatalogSources withProtection(std::string_view block = kProtection) {
  CatalogSources sources = baselineSources();
  append(sources.gateway, block);
  sources.secret_files["/etc/sluice/vault.txt"] = "# customers\nAcme Corp\nbuild-07.internal\n";
  return sources;
}

BOOST_AUTO_TEST_CASE(data_protection_is_read) {
  auto catalog = compileClean(withProtection());
  BOOST_REQUIRE(catalog->data_protection.has_value());
  const DataProtection& protection = *catalog->data_protection;
  BOOST_TEST(protection.mask == (std::vector<std::string>{"email", "api_key", "private_key", "password"}),
             boost::test_tools::per_element());
  BOOST_TEST(protection.block == std::vector<std::string>{"private_key"}, boost::test_tools::per_element());
  BOOST_TEST(!protection.restore);
  BOOST_TEST(protection.vault_ref == "file:/etc/sluice/vault.txt");
  BOOST_TEST(protection.vault_text == "# customers\nAcme Corp\nbuild-07.internal\n");
  BOOST_TEST(protection.detector == nullptr);  // the loader compiles it, not the pure compiler
  // Declared: an endpoint without trust is public, so it is masked.
  BOOST_TEST(catalog->masks(*catalog->endpoint("anthropic/api")));
}

BOOST_AUTO_TEST_CASE(data_protection_defaults_restore_and_needs_no_vault_or_block) {
  auto catalog = compileClean(withProtection("  data_protection:\n    mask: [email]\n"));
  const DataProtection& protection = *catalog->data_protection;
  BOOST_TEST(protection.restore);
  BOOST_TEST(protection.block.empty());
  BOOST_TEST(protection.vault_ref.empty());
  BOOST_TEST(protection.vault_text.empty());
}

BOOST_AUTO_TEST_CASE(every_mask_kind_is_accepted) {
  std::string kinds;
  for (std::string_view kind : kMaskKinds) kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
  auto catalog = compileClean(withProtection("  data_protection:\n    mask: [" + kinds + "]\n    block: [" + kinds + "]\n"));
  BOOST_TEST(catalog->data_protection->mask.size() == std::size(kMaskKinds));
  BOOST_TEST(catalog->data_protection->block.size() == std::size(kMaskKinds));
}

BOOST_AUTO_TEST_CASE(trust_tiers_decide_which_endpoints_are_masked) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email]\n");
  edit(sources.providers, "    display_name: DeepSeek\n", "    display_name: DeepSeek\n    trust: local\n");
  edit(sources.providers, "    credential: deepseek-eu\n", "    credential: deepseek-eu\n    trust: trusted_raw\n");
  edit(sources.providers, "    display_name: OpenCode Go\n", "    display_name: OpenCode Go\n    trust: trusted_masked\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(!catalog->masks(*catalog->endpoint("deepseek/api")));
  BOOST_TEST(!catalog->masks(*catalog->endpoint("deepseek-eu/api")));
  BOOST_TEST(catalog->masks(*catalog->endpoint("opencode-go/chat")));
  BOOST_TEST(catalog->masks(*catalog->endpoint("anthropic/api")));
}

BOOST_AUTO_TEST_CASE(an_unknown_data_protection_key_is_refused) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email]\n    unmask: true\n");
  expectError(compileCatalog(sources), at(sources.gateway, "unmask"),
              "unknown key 'unmask' in data_protection; expected one of: mask, vault, restore, block");
}

BOOST_AUTO_TEST_CASE(an_unknown_kind_is_refused_naming_the_kinds) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email, ssn]\n    block: [credit_card]\n");
  const CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "ssn"),
              "mask of data_protection names unknown kind 'ssn'; kinds: email, phone, payment_card, iban, api_key, "
              "jwt, private_key, password, url_credentials, ip_address");
  expectError(result, at(sources.gateway, "credit_card"), "block of data_protection names unknown kind 'credit_card'");
}

BOOST_AUTO_TEST_CASE(vault_as_a_kind_is_refused) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email, vault]\n");
  expectError(compileCatalog(sources), at(sources.gateway, "vault]"),
              "mask of data_protection may not name 'vault': the vault is its own key (vault: file:PATH)");
}

BOOST_AUTO_TEST_CASE(a_kind_named_twice_is_refused) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email, phone, email]\n");
  expectError(compileCatalog(sources), at(sources.gateway, "email", 2),
              "mask of data_protection names 'email' more than once");
}

BOOST_AUTO_TEST_CASE(a_blocked_kind_must_also_be_masked) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email]\n    block: [private_key]\n");
  expectError(compileCatalog(sources), at(sources.gateway, "private_key"),
              "block of data_protection names 'private_key', which mask does not list; a blocked kind must also be masked");
}

BOOST_AUTO_TEST_CASE(data_protection_that_masks_nothing_is_refused) {
  for (std::string_view block : {"  data_protection:\n    restore: true\n", "  data_protection:\n    mask: []\n",
                                 "  data_protection: {}\n"}) {
    CatalogSources sources = withProtection(block);
    expectError(compileCatalog(sources), at(sources.gateway, "data_protection"),
                "data_protection needs mask: [kinds] or vault: file:PATH");
  }
  // A vault alone is enough.
  auto catalog = compileClean(withProtection("  data_protection:\n    vault: file:/etc/sluice/vault.txt\n"));
  BOOST_TEST(catalog->data_protection->mask.empty());
}

BOOST_AUTO_TEST_CASE(the_vault_must_be_a_readable_file_and_is_never_shown) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: [email]\n    vault: env:VAULT\n");
  expectError(compileCatalog(sources), at(sources.gateway, "env:VAULT"), "vault of data_protection must be file:PATH");

  sources = withProtection("  data_protection:\n    mask: [email]\n    vault: file:/nowhere/vault.txt\n");
  expectError(compileCatalog(sources), at(sources.gateway, "file:/nowhere"),
              "vault file /nowhere/vault.txt could not be read");

  sources = withProtection("  data_protection:\n    mask: [email]\n    vault: file:/etc/sluice/vault.txt\n");
  sources.secret_files["/etc/sluice/vault.txt"] = std::string(kMaxVaultFileBytes + 1, 'x');
  const CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "file:/etc"), "vault file /etc/sluice/vault.txt is larger than 64 MiB");
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
  BOOST_TEST(result.diagnostics[0].message.find("xxxx") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_restore_and_list_shapes_are_refused) {
  CatalogSources sources = withProtection("  data_protection:\n    mask: email\n    restore: maybe\n");
  const CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "email"), "mask of data_protection must be a list");
  expectError(result, at(sources.gateway, "maybe"), "restore of data_protection must be");
}

BOOST_AUTO_TEST_CASE(secret_files_referenced_lists_the_vault) {
  CatalogSources sources = withProtection();
  std::vector<std::string> expected = {"/run/secrets/deepseek", "/etc/sluice/vault.txt"};
  BOOST_TEST(secretFilesReferenced(sources) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
