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
using testing::edit;
using testing::dump;
using testing::expectDiagnostic;
using testing::expectError;

constexpr std::string_view kHub = "\n  presence: { url: \"https://hub.internal:7070/\", poll_ms: 500, stale_ms: 2000 }\n";
constexpr std::string_view kOwnEndpoint = "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1 }";

BOOST_AUTO_TEST_SUITE(parse_providers)

BOOST_AUTO_TEST_CASE(every_provider_field_is_read) {
  auto catalog = compileClean(baselineSources());
  const Provider* p = catalog->provider("anthropic");
  BOOST_TEST(p->display_name == "Anthropic");
  BOOST_TEST(p->credential_id == "anthropic");
  BOOST_REQUIRE(p->headers.size() == 1u);
  BOOST_TEST(p->headers[0].first == "anthropic-version");
  BOOST_TEST(p->headers[0].second == "2023-06-01");
  BOOST_TEST(p->user_agent == "sluice/1");
  BOOST_TEST(!p->governance.european);
  BOOST_TEST(p->governance.no_retain);
  BOOST_TEST(p->retry.attempts == 2);
  BOOST_TEST(p->retry.backoff_ms == 200);
  BOOST_TEST(p->breaker.failures == 5);
  BOOST_TEST(p->breaker.cooldown_s == 30);
  BOOST_TEST(p->timeouts.connect_ms == 5000);
  BOOST_TEST(p->timeouts.first_byte_ms == 60000);
  BOOST_TEST(p->timeouts.idle_ms == 120000);
  BOOST_REQUIRE(p->endpoints.size() == 1u);
  BOOST_TEST(p->endpoints[0].wire == Wire::Anthropic);
  BOOST_TEST(p->endpoints[0].url == "https://api.anthropic.com");
  BOOST_TEST(p->where.line == 2);
}

BOOST_AUTO_TEST_CASE(omitted_fields_take_their_defaults) {
  auto catalog = compileClean(baselineSources());
  const Provider* p = catalog->provider("deepseek-eu");
  BOOST_TEST(p->display_name == "deepseek-eu");
  BOOST_TEST(p->headers.empty());
  BOOST_TEST(p->user_agent.empty());
  BOOST_TEST(p->retry.attempts == 1);
  BOOST_TEST(p->retry.backoff_ms == 200);
  BOOST_TEST(p->breaker.failures == 5);
  BOOST_TEST(p->timeouts.first_byte_ms == 60000);
  BOOST_TEST(p->governance.european);
}

BOOST_AUTO_TEST_CASE(endpoints_keep_file_order_and_lose_trailing_slashes) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->endpoint("deepseek/api")->url == "https://api.deepseek.com/v1");
  const Provider* go = catalog->provider("opencode-go");
  BOOST_REQUIRE(go->endpoints.size() == 2u);
  BOOST_TEST(go->endpoints[0].id == "chat");
  BOOST_TEST(go->endpoints[1].key == "opencode-go/responses");
}

BOOST_AUTO_TEST_CASE(url_reads_the_environment_first) {
  CatalogSources sources = baselineSources();
  sources.env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9000/anthropic/";
  BOOST_TEST(compileClean(sources)->endpoint("anthropic/api")->url == "http://127.0.0.1:9000/anthropic");
}

BOOST_AUTO_TEST_CASE(auth_headers_are_refused_whatever_their_case) {
  for (std::string_view header : {"Authorization", "x-api-key", "X-Goog-Api-Key"}) {
    CatalogSources sources = baselineSources();
    edit(sources.providers, "headers: { anthropic-version: \"2023-06-01\" }",
         "headers: { anthropic-version: \"2023-06-01\", " + std::string(header) + ": abc }");
    expectError(compileCatalog(sources), at(sources.providers, header),
                "header '" + std::string(header) +
                    "' of provider 'anthropic' is not allowed: the gateway sends the credential itself");
  }
}

BOOST_AUTO_TEST_CASE(forward_headers_are_kept_lower_case_without_duplicates) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "    user_agent: sluice/1\n",
       "    user_agent: sluice/1\n    forward_headers: [Traceparent, x-request-id, traceparent]\n");
  auto catalog = compileClean(sources);
  std::vector<std::string> expected = {"traceparent", "x-request-id"};
  BOOST_TEST(catalog->provider("anthropic")->forward_headers == expected, boost::test_tools::per_element());
  BOOST_TEST(catalog->provider("deepseek")->forward_headers.empty());
}

BOOST_AUTO_TEST_CASE(forward_headers_may_not_name_auth_framing_or_invalid_headers) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "    user_agent: sluice/1\n",
       "    user_agent: sluice/1\n    forward_headers: [X-Api-Key, Host, \"bad header\"]\n");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.providers, "X-Api-Key"),
              "forward_headers of provider 'anthropic' may not name 'X-Api-Key'");
  expectError(result, at(sources.providers, "Host"), "forward_headers of provider 'anthropic' may not name 'Host'");
  expectError(result, at(sources.providers, "\"bad header\""),
              "header name 'bad header' in forward_headers of provider 'anthropic' is not valid");
}

BOOST_AUTO_TEST_CASE(row11_forward_headers_cannot_name_credentials) {
  // Each name the gateway reads from its caller (credentials, the console's cookie and CSRF token,
  // its own x-sluice-* headers) or that frames the message: refused where it is written.
  const char* names[] = {"Cookie",         "authorization", "x-api-key",      "X-CSRF-Token",
                         "x-sluice-scope-project", "X-Sluice-Anything", "host", "content-length",
                         "transfer-encoding", "connection"};
  std::string list;
  for (const char* name : names) list += std::string(list.empty() ? "" : ", ") + name;
  CatalogSources sources = baselineSources();
  edit(sources.providers, "    user_agent: sluice/1\n",
       "    user_agent: sluice/1\n    forward_headers: [traceparent, " + list + "]\n");
  const auto result = compileCatalog(sources);
  for (const char* name : names) {
    expectError(result, atIn(sources.providers, "forward_headers: [traceparent", name),
                "forward_headers of provider 'anthropic' may not name '" + std::string(name) + "'");
  }
}

BOOST_AUTO_TEST_CASE(header_values_must_be_strings) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "anthropic-version: \"2023-06-01\"", "anthropic-version: [a]");
  expectError(compileCatalog(sources), at(sources.providers, "[a]"),
              "header 'anthropic-version' of provider 'anthropic' must be a string, got a list");
}

BOOST_AUTO_TEST_CASE(wire_must_be_one_of_the_known_wires) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "responses: { wire: openai-responses", "responses: { wire: openai");
  expectError(compileCatalog(sources), at(sources.providers, "openai,"),
              "wire of endpoint 'opencode-go/responses' must be one of: anthropic, openai-chat, "
              "openai-responses, gemini, bedrock-converse, mcp; got 'openai'");
}

BOOST_AUTO_TEST_CASE(endpoint_needs_wire_and_url) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "chat: { wire: openai-chat, url: https://opencode.ai/zen/go/v1 }", "chat: {}");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.providers, "chat:"), "endpoint 'opencode-go/chat' needs wire");
  expectError(result, at(sources.providers, "chat:"), "endpoint 'opencode-go/chat' needs url");
}

BOOST_AUTO_TEST_CASE(url_must_be_http_or_https) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "url: https://eu.deepseek.example/v1", "url: ftp://eu.deepseek.example");
  expectError(compileCatalog(sources), at(sources.providers, "ftp://"),
              "url of endpoint 'deepseek-eu/api' must start with http:// or https://, got 'ftp://eu.deepseek.example'");
}

BOOST_AUTO_TEST_CASE(url_must_have_a_host_and_no_query) {
  for (std::string_view url : {"https:///v1", "https://a.example/v1?x=1", "http://"}) {
    CatalogSources sources = baselineSources();
    std::string quoted = "\"" + std::string(url) + "\"";
    edit(sources.providers, "https://eu.deepseek.example/v1", quoted);
    expectError(compileCatalog(sources), at(sources.providers, quoted), "url of endpoint 'deepseek-eu/api' must be a base URL");
  }
}

BOOST_AUTO_TEST_CASE(provider_needs_credential_and_endpoints) {
  CatalogSources sources = baselineSources();
  append(sources.providers, "  bare:\n    display_name: Bare\n");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.providers, "bare:"), "provider 'bare' needs credential");
  expectError(result, at(sources.providers, "bare:"), "provider 'bare' needs endpoints");
}

BOOST_AUTO_TEST_CASE(provider_needs_at_least_one_endpoint) {
  CatalogSources sources = baselineSources();
  append(sources.providers, "  bare:\n    credential: anthropic\n    endpoints: {}\n");
  expectError(compileCatalog(sources), at(sources.providers, "endpoints: {}"),
              "provider 'bare' needs at least one endpoint");
}

BOOST_AUTO_TEST_CASE(policy_numbers_are_range_checked) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "retry: { attempts: 2,", "retry: { attempts: 11,");
  edit(sources.providers, "breaker: { failures: 5,", "breaker: { failures: 0,");
  edit(sources.providers, "connect_ms: 5000", "connect_ms: fast");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.providers, "11"), "attempts of retry of provider 'anthropic' must be an integer from 0 to 10, got '11'");
  expectError(result, at(sources.providers, "0,"), "failures of breaker of provider 'anthropic' must be an integer from 1 to 1000, got '0'");
  expectError(result, at(sources.providers, "fast"), "connect_ms of timeouts of provider 'anthropic' must be an integer from 1 to 3600000, got 'fast'");
}

BOOST_AUTO_TEST_CASE(unknown_keys_in_nested_blocks_are_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "retry: { attempts: 2,", "retry: { tries: 2,");
  edit(sources.providers, "governance: { european: true,", "governance: { eu: true,");
  edit(sources.providers, "api: { wire: openai-chat, url: \"https", "api: { wire: openai-chat, path: /x, url: \"https");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.providers, "tries"), "unknown key 'tries' in retry of provider 'anthropic'; expected one of: attempts, backoff_ms");
  expectError(result, at(sources.providers, "eu: true"), "unknown key 'eu' in governance of provider 'deepseek-eu'; expected one of: european, no_retain");
  expectError(result, at(sources.providers, "path"), "unknown key 'path' in endpoint 'deepseek/api'; expected one of: wire, url");
}

BOOST_AUTO_TEST_CASE(governance_flags_are_booleans) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "governance: { no_retain: true }", "governance: { no_retain: sometimes }");
  expectError(compileCatalog(sources), at(sources.providers, "sometimes"),
              "no_retain of provider 'deepseek' must be true or false, got 'sometimes'");
}

BOOST_AUTO_TEST_CASE(endpoint_ids_are_plain_names) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "      responses: {", "      \"re/sponses\": {");
  expectError(compileCatalog(sources), at(sources.providers, "\"re/sponses\""), "endpoint id 're/sponses' is not valid");
}

BOOST_AUTO_TEST_CASE(an_own_machine_endpoint_is_read_and_may_leave_out_its_url) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", std::string("  default_model: claude-sonnet-5-5") + std::string(kHub));
  edit(sources.providers, kOwnEndpoint,
       "      api: { wire: openai-chat, presence: studio-1, skip_busy: true, max_input_bytes: 20000 }");
  auto catalog = compileClean(sources);
  const Endpoint* endpoint = catalog->endpoint("deepseek-eu/api");
  BOOST_REQUIRE(endpoint != nullptr);
  BOOST_TEST(endpoint->url.empty());
  BOOST_TEST(endpoint->presence_node.value_or("") == "studio-1");
  BOOST_TEST(endpoint->skip_busy);
  BOOST_TEST(endpoint->max_input_bytes.value_or(0) == 20000);
  BOOST_TEST(catalog->presence->poll_ms == 500);
  BOOST_TEST(catalog->presence->stale_ms == 2000);
}
BOOST_AUTO_TEST_CASE(max_input_bytes_needs_no_presence_and_must_be_positive) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, kOwnEndpoint,
       "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1, max_input_bytes: 4096 }");
  BOOST_TEST(compileClean(sources)->endpoint("deepseek-eu/api")->max_input_bytes.value_or(0) == 4096);
  CatalogSources zero = baselineSources();
  edit(zero.providers, kOwnEndpoint, "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1, max_input_bytes: 0 }");
  expectError(compileCatalog(zero), atIn(zero.providers, "max_input_bytes", "0 }"), "max_input_bytes");
}
BOOST_AUTO_TEST_CASE(a_url_is_still_required_without_presence) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat }");
  expectError(compileCatalog(sources), at(sources.providers, "api: { wire: openai-chat }"), "needs url");
}
BOOST_AUTO_TEST_CASE(skip_busy_needs_presence) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1, skip_busy: true }");
  expectError(compileCatalog(sources), atIn(sources.providers, "eu.deepseek", "skip_busy"), "skip_busy");
}
BOOST_AUTO_TEST_CASE(a_presence_node_is_a_name) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", std::string("  default_model: claude-sonnet-5-5") + std::string(kHub));
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat, presence: \"studio 1\" }");
  expectError(compileCatalog(sources), at(sources.providers, "\"studio 1\""), "presence node");
}

BOOST_AUTO_TEST_CASE(presence_hosts_and_an_own_credential_are_read) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n", std::string("  default_model: claude-sonnet-5-5") + std::string(kHub));
  edit(sources.providers, kOwnEndpoint,
       "      api: { wire: openai-chat, presence: studio-1, presence_hosts: [10.1.0.0/16, \"fd00::7\"], "
       "credential: anthropic }");
  auto catalog = compileClean(sources);
  const Endpoint* endpoint = catalog->endpoint("deepseek-eu/api");
  BOOST_REQUIRE(endpoint->presence_hosts.size() == 2u);
  BOOST_TEST(endpoint->presence_hosts[0].text == "10.1.0.0/16");
  BOOST_TEST(endpoint->credential_id.value_or("") == "anthropic");
  BOOST_TEST(catalog->credentialOf(*endpoint)->id == "anthropic");
  // Without its own, an endpoint's credential is its provider's.
  BOOST_TEST(catalog->credentialOf(*catalog->endpoint("anthropic/api"))->id == "anthropic");
}
BOOST_AUTO_TEST_CASE(presence_hosts_need_presence_without_url_and_address_blocks) {
  CatalogSources with_url = baselineSources();
  edit(with_url.gateway, "  default_model: claude-sonnet-5-5\n", std::string("  default_model: claude-sonnet-5-5") + std::string(kHub));
  edit(with_url.providers, kOwnEndpoint,
       "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1, presence: s, presence_hosts: [10.0.0.0/8] }");
  expectError(compileCatalog(with_url), atIn(with_url.providers, "presence: s", "presence_hosts"), "needs presence: and no url:");
  CatalogSources bad = baselineSources();
  edit(bad.gateway, "  default_model: claude-sonnet-5-5\n", std::string("  default_model: claude-sonnet-5-5") + std::string(kHub));
  edit(bad.providers, kOwnEndpoint, "      api: { wire: openai-chat, presence: s, presence_hosts: [studio.lan] }");
  expectError(compileCatalog(bad), at(bad.providers, "studio.lan"), "presence_hosts of endpoint 'deepseek-eu/api'");
}
BOOST_AUTO_TEST_CASE(an_endpoint_credential_must_be_declared) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat, url: https://eu.deepseek.example/v1, credential: nope }");
  const auto result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  BOOST_TEST(dump(result).find("endpoint 'deepseek-eu/api' references unknown credential 'nope'") != std::string::npos,
             dump(result));
}
BOOST_AUTO_TEST_CASE(a_plain_http_hub_addressing_own_machines_is_warned_about) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
       "  default_model: claude-sonnet-5-5\n  presence: { url: \"http://hub.internal:7070\" }\n");
  edit(sources.providers, kOwnEndpoint, "      api: { wire: openai-chat, presence: studio-1 }");
  const auto result = compileCatalog(sources);
  BOOST_TEST(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.gateway, "presence:"), "polled over plain HTTP");
  // On loopback, or over https, nothing to say.
  CatalogSources local = sources;
  edit(local.gateway, "http://hub.internal:7070", "http://127.0.0.1:7070");
  compileClean(local);
}

BOOST_AUTO_TEST_CASE(trust_is_read_per_provider_and_overridden_per_endpoint) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "    display_name: OpenCode Go\n", "    display_name: OpenCode Go\n    trust: trusted_masked\n");
  edit(sources.providers, "responses: { wire: openai-responses, url: https://opencode.ai/zen/go/v1 }",
       "responses: { wire: openai-responses, url: https://opencode.ai/zen/go/v1, trust: local }");
  edit(sources.providers, "    display_name: DeepSeek\n", "    display_name: DeepSeek\n    trust: trusted_raw\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->provider("opencode-go")->trust.value_or(Trust::Local) == Trust::TrustedMasked);
  BOOST_TEST(catalog->endpoint("opencode-go/chat")->trust == Trust::TrustedMasked);
  BOOST_TEST(!catalog->endpoint("opencode-go/chat")->trust_written.has_value());
  BOOST_TEST(catalog->endpoint("opencode-go/responses")->trust == Trust::Local);
  BOOST_TEST(catalog->endpoint("deepseek/api")->trust == Trust::TrustedRaw);
  // Nothing written: public, which matters only once data_protection is declared.
  BOOST_TEST(!catalog->provider("anthropic")->trust.has_value());
  BOOST_TEST(catalog->endpoint("anthropic/api")->trust == Trust::Public);
  BOOST_TEST(!catalog->data_protection.has_value());
  BOOST_TEST(!catalog->masks(*catalog->endpoint("anthropic/api")));
}

BOOST_AUTO_TEST_CASE(an_unknown_trust_tier_is_refused_on_provider_and_endpoint) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "    display_name: DeepSeek\n", "    display_name: DeepSeek\n    trust: private\n");
  edit(sources.providers, "chat: { wire: openai-chat, url: https://opencode.ai/zen/go/v1 }",
       "chat: { wire: openai-chat, url: https://opencode.ai/zen/go/v1, trust: [local] }");
  const CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.providers, "private"),
              "trust of provider 'deepseek' must be one of: local, trusted_raw, trusted_masked, public; got 'private'");
  expectError(result, at(sources.providers, "[local]"), "trust of endpoint 'opencode-go/chat' must be");
}

BOOST_AUTO_TEST_CASE(masked_tiers_are_trusted_masked_and_public) {
  BOOST_TEST(!masksRequests(Trust::Local));
  BOOST_TEST(!masksRequests(Trust::TrustedRaw));
  BOOST_TEST(masksRequests(Trust::TrustedMasked));
  BOOST_TEST(masksRequests(Trust::Public));
  BOOST_TEST(toString(Trust::TrustedRaw) == "trusted_raw");
  BOOST_TEST(toString(Trust::TrustedMasked) == "trusted_masked");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
