#include "catalog/catalog.h"

#include <boost/test/unit_test.hpp>

#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

std::shared_ptr<const Catalog> baseline() {
  static std::shared_ptr<const Catalog> compiled = testing::compileClean(testing::baselineSources());
  return compiled;
}

BOOST_AUTO_TEST_SUITE(catalog)

BOOST_AUTO_TEST_CASE(lookups_find_declared_ids_and_return_null_otherwise) {
  auto c = baseline();
  BOOST_TEST(c->credential("deepseek")->kind == CredentialKind::Platform);
  BOOST_TEST(c->credential("nope") == nullptr);
  BOOST_TEST(c->provider("anthropic")->display_name == "Anthropic");
  BOOST_TEST(c->provider("nope") == nullptr);
  BOOST_TEST(c->model("claude-haiku-5")->display_name == "Claude Haiku 5");
  BOOST_TEST(c->model("nope") == nullptr);
  BOOST_TEST(c->route("fast-pool")->kind == RouteKind::Pinned);
  BOOST_TEST(c->route("nope") == nullptr);
}

BOOST_AUTO_TEST_CASE(endpoint_is_found_by_provider_slash_endpoint) {
  auto c = baseline();
  const Endpoint* endpoint = c->endpoint("opencode-go/responses");
  BOOST_REQUIRE(endpoint != nullptr);
  BOOST_TEST(endpoint->provider_id == "opencode-go");
  BOOST_TEST(endpoint->id == "responses");
  BOOST_TEST(endpoint->key == "opencode-go/responses");
  BOOST_TEST(endpoint->wire == Wire::OpenAIResponses);
  BOOST_TEST(c->endpoint("opencode-go") == nullptr);
  BOOST_TEST(c->endpoint("opencode-go/nope") == nullptr);
  BOOST_TEST(c->endpoint("nope/chat") == nullptr);
  BOOST_TEST(c->endpoint("") == nullptr);
}

BOOST_AUTO_TEST_CASE(deployments_of_a_model_are_in_failover_order) {
  auto c = baseline();
  const auto& chain = c->deploymentsOf("deepseek-v4-pro");
  BOOST_REQUIRE(chain.size() == 2u);
  BOOST_TEST(chain[0].endpoint_key == "deepseek/api");
  BOOST_TEST(chain[1].endpoint_key == "opencode-go/chat");
  BOOST_TEST(c->deploymentsOf("nope").empty());
  BOOST_TEST(c->deployment("deepseek-v4-pro", "opencode-go/chat") == &chain[1]);
  BOOST_TEST(c->deployment("deepseek-v4-pro", "anthropic/api") == nullptr);
  BOOST_TEST(c->deployment("nope", "deepseek/api") == nullptr);
}

BOOST_AUTO_TEST_CASE(resolve_finds_a_declared_model) {
  Resolution r = baseline()->resolve("claude-haiku-5");
  BOOST_TEST(r.kind == Resolution::Kind::Model);
  BOOST_TEST(r.model_id == "claude-haiku-5");
  BOOST_TEST(r.alias_route.empty());
}

BOOST_AUTO_TEST_CASE(resolve_strips_the_1m_marker_in_any_case) {
  auto c = baseline();
  for (std::string_view requested : {"claude-sonnet-5-5[1m]", "claude-sonnet-5-5[1M]"}) {
    Resolution r = c->resolve(requested);
    BOOST_TEST(r.kind == Resolution::Kind::Model);
    BOOST_TEST(r.model_id == "claude-sonnet-5-5");
  }
  BOOST_TEST(c->resolve("claude-sonnet-5-5[2m]").kind == Resolution::Kind::Unknown);
}

BOOST_AUTO_TEST_CASE(resolve_maps_an_alias_route_to_its_model) {
  Resolution r = baseline()->resolve("go-deepseek-v4-pro");
  BOOST_TEST(r.kind == Resolution::Kind::Alias);
  BOOST_TEST(r.model_id == "deepseek-v4-pro");
  BOOST_TEST(r.alias_route == "go-deepseek-v4-pro");
}

BOOST_AUTO_TEST_CASE(resolve_points_a_retired_id_at_its_replacement) {
  Resolution r = baseline()->resolve("claude-sonnet-4[1m]");
  BOOST_TEST(r.kind == Resolution::Kind::Retired);
  BOOST_TEST(r.model_id == "claude-sonnet-5-5");
}

BOOST_AUTO_TEST_CASE(resolve_refuses_anything_else_including_non_alias_routes) {
  auto c = baseline();
  BOOST_TEST(c->resolve("gpt-4").kind == Resolution::Kind::Unknown);
  BOOST_TEST(c->resolve("fast-pool").kind == Resolution::Kind::Unknown);
  BOOST_TEST(c->resolve("project-odoo-delivery").kind == Resolution::Kind::Unknown);
  BOOST_TEST(c->resolve("").kind == Resolution::Kind::Unknown);
  BOOST_TEST(c->resolve("[1m]").kind == Resolution::Kind::Unknown);
}

BOOST_AUTO_TEST_CASE(strip_context_marker_only_removes_a_trailing_marker) {
  BOOST_TEST(stripContextMarker("opus[1m]") == "opus");
  BOOST_TEST(stripContextMarker("opus[1M]") == "opus");
  BOOST_TEST(stripContextMarker("opus") == "opus");
  BOOST_TEST(stripContextMarker("[1m]opus") == "[1m]opus");
  BOOST_TEST(stripContextMarker("1m]") == "1m]");
}

BOOST_AUTO_TEST_CASE(governance_of_a_deployment_is_the_provider_overridden_by_the_model) {
  Catalog c;
  Provider provider;
  provider.id = "p";
  provider.governance = {.european = true, .no_retain = false};
  c.providers.push_back(provider);
  Model plain;
  plain.id = "plain";
  Model overriding;
  overriding.id = "overriding";
  overriding.governance.no_retain = true;
  overriding.governance.european = false;
  Model partial;
  partial.id = "partial";
  partial.governance.no_retain = true;
  c.models = {plain, overriding, partial};
  Deployment d;
  d.provider_id = "p";
  d.model_id = "plain";
  BOOST_TEST(c.governanceOf(d).european);
  BOOST_TEST(!c.governanceOf(d).no_retain);
  d.model_id = "overriding";
  BOOST_TEST(!c.governanceOf(d).european);
  BOOST_TEST(c.governanceOf(d).no_retain);
  d.model_id = "partial";
  BOOST_TEST(c.governanceOf(d).european);
  BOOST_TEST(c.governanceOf(d).no_retain);
}

BOOST_AUTO_TEST_CASE(governance_of_compiled_deployments) {
  auto c = baseline();
  const Deployment* eu = c->deployment("deepseek-flash", "deepseek-eu/api");
  BOOST_REQUIRE(eu != nullptr);
  BOOST_TEST(c->governanceOf(*eu).european);
  const Deployment* anthropic = c->deployment("claude-haiku-5", "anthropic/api");
  BOOST_TEST(!c->governanceOf(*anthropic).european);
  BOOST_TEST(c->governanceOf(*anthropic).no_retain);
}

BOOST_AUTO_TEST_CASE(wire_and_client_family_names_round_trip) {
  for (Wire w : {Wire::Anthropic, Wire::OpenAIChat, Wire::OpenAIResponses, Wire::Gemini}) {
    BOOST_TEST((parseWire(toString(w)) == w));
  }
  BOOST_TEST(toString(Wire::OpenAIChat) == "openai-chat");
  BOOST_TEST(!parseWire("openai").has_value());
  for (ClientFamily f : {ClientFamily::Claude, ClientFamily::OpenCode, ClientFamily::Codex, ClientFamily::OpenAI}) {
    BOOST_TEST((parseClientFamily(toString(f)) == f));
  }
  BOOST_TEST(!parseClientFamily("Claude").has_value());
}

BOOST_AUTO_TEST_CASE(enum_names_match_the_catalog_spelling) {
  BOOST_TEST(toString(CredentialKind::Personal) == "personal");
  BOOST_TEST(toString(Strategy::LeastBusy) == "least_busy");
  BOOST_TEST(toString(Strategy::Weighted) == "weighted");
  BOOST_TEST(toString(RouteKind::Implicit) == "implicit");
  BOOST_TEST(toString(RouteKind::Pinned) == "pinned");
  BOOST_TEST(toString(QuotaScope::ApiKey) == "api_key");
  BOOST_TEST(toString(QuotaScope::Organisation) == "organisation");
}

BOOST_AUTO_TEST_CASE(model_capabilities_and_advertising) {
  auto c = baseline();
  const Model* sonnet = c->model("claude-sonnet-5-5");
  BOOST_TEST(sonnet->hasCapability("vision"));
  BOOST_TEST(!sonnet->hasCapability("audio"));
  BOOST_TEST(sonnet->advertisedTo(ClientFamily::Claude));
  BOOST_TEST(!sonnet->advertisedTo(ClientFamily::OpenAI));
  const Model* flash = c->model("deepseek-flash");
  for (ClientFamily f : {ClientFamily::Claude, ClientFamily::OpenCode, ClientFamily::Codex, ClientFamily::OpenAI}) {
    BOOST_TEST(!flash->advertisedTo(f));
  }
}

BOOST_AUTO_TEST_CASE(the_sluice_prefix_resolves_like_the_bare_id) {
  auto catalog = testing::compileClean(testing::baselineSources());
  BOOST_TEST(catalog->resolve("sluice/claude-sonnet-5-5").kind == Resolution::Kind::Model);
  BOOST_TEST(catalog->resolve("sluice/claude-sonnet-5-5").model_id == "claude-sonnet-5-5");
  BOOST_TEST(catalog->resolve("sluice/claude-sonnet-5-5[1m]").model_id == "claude-sonnet-5-5");
  BOOST_TEST(catalog->resolve("sluice/go-deepseek-v4-pro").kind == Resolution::Kind::Alias);
  BOOST_TEST(catalog->resolve("sluice/claude-sonnet-4-5").kind == Resolution::Kind::Retired);
  BOOST_TEST(catalog->resolve("sluice/nothing").kind == Resolution::Kind::Unknown);
  BOOST_TEST(catalog->resolveExact("sluice/claude-sonnet-5-5").kind == Resolution::Kind::Unknown);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
