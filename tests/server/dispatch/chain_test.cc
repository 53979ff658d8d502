// Ad-hoc chains through the planner: pieces, expansion, bounds, route_match.
#include "server/dispatch/chain.h"

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "server/dispatch/planner.h"
#include "tests/server/dispatch/catalog_fixture.h"

using sluice::dispatch::joinRouteMatch;
using sluice::dispatch::planDispatch;
using sluice::dispatch::servedRouteMatch;
using sluice::dispatch::splitChain;

namespace {

std::vector<std::string> endpointsOf(const sluice::dispatch::Plan& plan) {
  std::vector<std::string> keys;
  for (const auto& attempt : plan.attempts) keys.push_back(attempt.deployment->model_id + "@" + attempt.endpoint->key);
  return keys;
}

// The dispatch fixture with ad-hoc chains turned off.
std::shared_ptr<const sluice::catalog::Catalog> withoutChains() {
  auto copy = std::make_shared<sluice::catalog::Catalog>(*sluice::testing::dispatchCatalog());
  copy->ad_hoc_chains = false;
  return copy;
}

// Two providers serving one model; route `guarded` pins it to safe/anth only.
std::shared_ptr<const sluice::catalog::Catalog> guardedCatalog() {
  sluice::catalog::CatalogSources sources;
  sources.credentials = sluice::catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:K }\n"};
  sources.providers = sluice::catalog::SourceText{"ai/providers.yaml", R"(
providers:
  safe:
    credential: c
    endpoints:
      anth: { wire: anthropic, url: "https://safe.example" }
  pub:
    credential: c
    endpoints:
      anth: { wire: anthropic, url: "https://pub.example" }
)"};
  sources.models = sluice::catalog::SourceText{"ai/models.yaml", "models:\n  secret-model: {}\n  open-model: {}\n"};
  sources.deployments = sluice::catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  secret-model: [safe/anth, pub/anth]
  open-model: [pub/anth]
)"};
  sources.gateway = sluice::catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: open-model
  routes:
    - id: guarded
      models: [secret-model]
      deployments: [safe/anth]
)"};
  sources.env = {{"K", "k"}};
  auto compiled = sluice::catalog::compileCatalog(sources);
  if (!compiled.ok()) throw std::runtime_error(compiled.diagnostics.front().format());
  return compiled.catalog;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chain)

BOOST_AUTO_TEST_CASE(pieces_are_split_on_bars_and_trimmed) {
  const auto pieces = splitChain("a| b |c");
  BOOST_REQUIRE(pieces.has_value());
  BOOST_TEST((*pieces == std::vector<std::string>{"a", "b", "c"}));
  BOOST_TEST(!splitChain("a||b").has_value());
  BOOST_TEST(splitChain("a||b").error().find("piece 2") != std::string::npos);
  BOOST_TEST(!splitChain("a|").has_value());
  BOOST_TEST(!splitChain(std::string(5000, 'a')).has_value());
}

BOOST_AUTO_TEST_CASE(each_piece_is_tried_in_order_with_its_own_model_and_route) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"claude-haiku-5-5|deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-haiku-5-5@anthropic/api", "deepseek-v4-pro@deepseek/api",
                                                             "deepseek-v4-pro@opencode-go/chat"}));
  BOOST_TEST(plan->chain.value_or("") == "claude-haiku-5-5|deepseek-v4-pro");
  BOOST_TEST(joinRouteMatch(plan->route_match) == "chain:claude-haiku-5-5|deepseek-v4-pro");
  BOOST_TEST(plan->attempts[0].piece == 0u);
  BOOST_TEST(plan->attempts[1].piece == 1u);
  BOOST_TEST(plan->attempts[1].model->id == "deepseek-v4-pro");
  BOOST_TEST(plan->attempts[1].route->id == "deepseek-v4-pro");
  BOOST_TEST(plan->model_id == "claude-haiku-5-5");
  BOOST_REQUIRE_EQUAL(plan->access.size(), 2u);
  BOOST_TEST(plan->access[1].model_id == "deepseek-v4-pro");
  BOOST_TEST(joinRouteMatch(servedRouteMatch(*plan, &plan->attempts[2])) ==
             "chain:claude-haiku-5-5|deepseek-v4-pro;piece:deepseek-v4-pro;route:deepseek-v4-pro");
}

BOOST_AUTO_TEST_CASE(an_alias_piece_keeps_its_pinned_deployments_and_its_own_access_target) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"claude-sonnet-5-5|go-deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-sonnet-5-5@anthropic/api",
                                                             "deepseek-v4-pro@opencode-go/chat"}));
  BOOST_REQUIRE_EQUAL(plan->access.size(), 2u);
  BOOST_TEST(plan->access[1].route->id == "go-deepseek-v4-pro");
  BOOST_TEST((plan->pieces[1].kind == sluice::dispatch::PlanPiece::Kind::Alias));
}

BOOST_AUTO_TEST_CASE(an_endpoint_piece_reaches_every_model_deployed_there_in_catalog_order) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"anthropic/api", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-sonnet-5-5@anthropic/api",
                                                             "claude-haiku-5-5@anthropic/api"}));
  BOOST_TEST(joinRouteMatch(plan->route_match) == "chain:anthropic/api");
  // Each model is governed as when named alone: its implicit route.
  BOOST_REQUIRE_EQUAL(plan->access.size(), 2u);
  BOOST_TEST(plan->access[0].route->id == "claude-sonnet-5-5");
  BOOST_TEST(plan->access[1].route->id == "claude-haiku-5-5");
}

BOOST_AUTO_TEST_CASE(a_provider_wildcard_reaches_every_model_its_endpoints_serve) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"claude-haiku-5-5|opencode-go/*", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-haiku-5-5@anthropic/api",
                                                             "deepseek-v4-pro@opencode-go/chat"}));
  BOOST_TEST(plan->attempts[1].deployment->upstream_model == "ds-v4-pro");
}

BOOST_AUTO_TEST_CASE(a_target_reached_twice_is_tried_once) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"claude-sonnet-5-5|anthropic/*", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-sonnet-5-5@anthropic/api",
                                                             "claude-haiku-5-5@anthropic/api"}));
}

BOOST_AUTO_TEST_CASE(a_route_id_piece_plans_each_of_its_models_under_that_route) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto inside = planDispatch(*catalog, {"project-odoo-delivery", std::string("odoo-delivery")});
  BOOST_REQUIRE(inside.has_value());
  BOOST_TEST((endpointsOf(*inside) == std::vector<std::string>{"claude-sonnet-5-5@anthropic/api",
                                                               "claude-haiku-5-5@anthropic/api"}));
  BOOST_TEST(inside->attempts[1].route->id == "project-odoo-delivery");
  // A scoped route is not reachable from another project.
  const auto outside = planDispatch(*catalog, {"project-odoo-delivery", std::string("other")});
  BOOST_REQUIRE(!outside.has_value());
  BOOST_TEST(outside.error().status == 404);
  BOOST_TEST(outside.error().message.find("applies only to project 'odoo-delivery'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_sluice_prefix_is_accepted_on_the_name_and_on_each_piece) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto single = planDispatch(*catalog, {"sluice/claude-haiku-5-5", std::nullopt});
  BOOST_REQUIRE(single.has_value());
  BOOST_TEST(single->model_id == "claude-haiku-5-5");
  BOOST_TEST(!single->chain.has_value());
  const auto chained = planDispatch(*catalog, {"sluice/claude-haiku-5-5|sluice/anthropic/api", std::nullopt});
  BOOST_REQUIRE(chained.has_value());
  BOOST_TEST(chained->attempts.size() == 2u);
}

BOOST_AUTO_TEST_CASE(an_unknown_or_retired_piece_refuses_the_whole_chain_naming_it) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto unknown = planDispatch(*catalog, {"claude-haiku-5-5|gpt-4o", std::nullopt});
  BOOST_REQUIRE(!unknown.has_value());
  BOOST_TEST(unknown.error().status == 404);
  BOOST_TEST(unknown.error().key == "model_not_found");
  BOOST_TEST(unknown.error().message.find("'gpt-4o'") != std::string::npos);
  BOOST_TEST(joinRouteMatch(unknown.error().route_match) == "chain:claude-haiku-5-5|gpt-4o");
  const auto missing_endpoint = planDispatch(*catalog, {"claude-haiku-5-5|anthropic/nope", std::nullopt});
  BOOST_REQUIRE(!missing_endpoint.has_value());
  BOOST_TEST(missing_endpoint.error().status == 404);
  const auto retired = planDispatch(*catalog, {"claude-haiku-5-5|claude-sonnet-4-5", std::nullopt});
  BOOST_REQUIRE(!retired.has_value());
  BOOST_TEST(retired.error().key == "retired_model");
}

BOOST_AUTO_TEST_CASE(malformed_and_oversized_chains_are_400_invalid_chain) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto empty = planDispatch(*catalog, {"claude-haiku-5-5||deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(!empty.has_value());
  BOOST_TEST(empty.error().status == 400);
  BOOST_TEST(empty.error().key == "invalid_chain");
  std::string many = "claude-haiku-5-5";
  for (int i = 0; i < 40; ++i) many += "|claude-haiku-5-5";
  const auto too_many = planDispatch(*catalog, {many, std::nullopt});
  BOOST_REQUIRE(!too_many.has_value());
  BOOST_TEST(too_many.error().key == "invalid_chain");
  BOOST_TEST(too_many.error().message.find("40") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(more_than_forty_targets_after_expansion_is_refused) {
  // 41 models on one endpoint: a single provider/* piece expands past the bound.
  sluice::catalog::CatalogSources sources;
  sources.credentials = sluice::catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:K }\n"};
  sources.providers = sluice::catalog::SourceText{
      "ai/providers.yaml", "providers:\n  p:\n    credential: c\n    endpoints:\n      api: { wire: openai-chat, url: \"http://x\" }\n"};
  std::string models = "models:\n";
  std::string deployments = "deployments:\n";
  for (int i = 0; i < 41; ++i) {
    models += "  m" + std::to_string(i) + ": {}\n";
    deployments += "  m" + std::to_string(i) + ": [p/api]\n";
  }
  sources.models = sluice::catalog::SourceText{"ai/models.yaml", models};
  sources.deployments = sluice::catalog::SourceText{"ai/deployments.yaml", deployments};
  sources.gateway = sluice::catalog::SourceText{"ai/gateway.yaml", "gateway:\n  default_model: m0\n"};
  sources.env = {{"K", "k"}};
  const auto compiled = sluice::catalog::compileCatalog(sources);
  BOOST_REQUIRE(compiled.ok());
  const auto plan = planDispatch(*compiled.catalog, {"p/*", std::nullopt});
  BOOST_REQUIRE(!plan.has_value());
  BOOST_TEST(plan.error().status == 400);
  BOOST_TEST(plan.error().key == "invalid_chain");
  BOOST_TEST(plan.error().message.find("more than 40 targets") != std::string::npos);
  BOOST_TEST(planDispatch(*compiled.catalog, {"p/api|m0", std::nullopt}).has_value() == false);
}

BOOST_AUTO_TEST_CASE(a_piece_that_does_not_fit_is_passed_over_and_said_so) {
  const auto catalog = sluice::testing::dispatchCatalog();
  sluice::dispatch::PlanRequest request{"claude-sonnet-5-5|claude-haiku-5-5", std::nullopt};
  request.estimated_input_tokens = 2'000'000;  // over claude-sonnet-5-5's 1M window; haiku has none
  const auto plan = planDispatch(*catalog, request);
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((endpointsOf(*plan) == std::vector<std::string>{"claude-haiku-5-5@anthropic/api"}));
  BOOST_TEST(joinRouteMatch(plan->route_match) ==
             "chain:claude-sonnet-5-5|claude-haiku-5-5;skip:claude-sonnet-5-5=context_window_exceeded");
  BOOST_TEST(plan->pieces[0].skipped.value_or("") == "context_window_exceeded");
  // Every piece passed over: the first piece's refusal.
  sluice::dispatch::PlanRequest alone{"claude-sonnet-5-5|claude-sonnet-5-5", std::nullopt};
  alone.estimated_input_tokens = 2'000'000;
  const auto refused = planDispatch(*catalog, alone);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().key == "context_window_exceeded");
}

BOOST_AUTO_TEST_CASE(max_tokens_is_clamped_per_piece) {
  const auto catalog = sluice::testing::dispatchCatalog();
  sluice::dispatch::PlanRequest request{"claude-sonnet-5-5|deepseek-v4-pro", std::nullopt};
  request.max_tokens = 200'000;
  const auto plan = planDispatch(*catalog, request);
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->attempts[0].max_tokens_clamped);
  BOOST_TEST(plan->attempts[0].max_tokens.value_or(0) == 128000);
  BOOST_TEST(!plan->attempts[1].max_tokens_clamped);
  BOOST_TEST(plan->attempts[1].max_tokens.value_or(0) == 200000);
}

BOOST_AUTO_TEST_CASE(chains_turned_off_are_refused_but_plain_names_still_plan) {
  const auto catalog = withoutChains();
  const auto chain = planDispatch(*catalog, {"claude-haiku-5-5|deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(!chain.has_value());
  BOOST_TEST(chain.error().status == 400);
  BOOST_TEST(chain.error().key == "invalid_chain");
  BOOST_TEST(chain.error().message.find("ad_hoc_chains: false") != std::string::npos);
  BOOST_TEST(!planDispatch(*catalog, {"anthropic/*", std::nullopt}).has_value());
  BOOST_TEST(planDispatch(*catalog, {"sluice/claude-haiku-5-5", std::nullopt}).has_value());
}

BOOST_AUTO_TEST_CASE(a_plain_plan_is_unchanged_and_lists_one_access_target) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(!plan->chain.has_value());
  BOOST_REQUIRE_EQUAL(plan->access.size(), 1u);
  BOOST_TEST(plan->access[0].route->id == "deepseek-v4-pro");
  BOOST_TEST(joinRouteMatch(servedRouteMatch(*plan, &plan->attempts[0])) == "route:deepseek-v4-pro");
}

BOOST_AUTO_TEST_CASE(pinned_pieces_obey_the_route_deployments_narrowing) {
  const auto catalog = guardedCatalog();
  // Named alone, the model goes only where its route pins it.
  const auto alone = planDispatch(*catalog, {"secret-model", std::nullopt});
  BOOST_REQUIRE(alone.has_value());
  BOOST_TEST((endpointsOf(*alone) == std::vector<std::string>{"secret-model@safe/anth"}));
  // Asked through the other provider's endpoint, it is not reached at all: only open-model is.
  for (const char* piece : {"pub/anth", "pub/*", "sluice/pub/anth"}) {
    const auto pinned = planDispatch(*catalog, {piece, std::nullopt});
    BOOST_REQUIRE_MESSAGE(pinned.has_value(), piece);
    BOOST_TEST((endpointsOf(*pinned) == std::vector<std::string>{"open-model@pub/anth"}), piece);
  }
  // Through its own endpoint it is reached, under its route.
  const auto safe = planDispatch(*catalog, {"safe/anth", std::nullopt});
  BOOST_REQUIRE(safe.has_value());
  BOOST_TEST((endpointsOf(*safe) == std::vector<std::string>{"secret-model@safe/anth"}));
  BOOST_TEST(safe->attempts[0].route->id == "guarded");
  // A chain whose only way to the model is the excluded endpoint reaches nothing for it.
  const auto chained = planDispatch(*catalog, {"secret-model|pub/anth", std::nullopt});
  BOOST_REQUIRE(chained.has_value());
  BOOST_TEST((endpointsOf(*chained) == std::vector<std::string>{"secret-model@safe/anth", "open-model@pub/anth"}));
}

BOOST_AUTO_TEST_CASE(pieces_holding_a_semicolon_or_a_control_character_are_refused) {
  // A piece such as "x;route:admin;identity:certificate" would read as real route_match segments.
  for (const std::string& text : {std::string("claude-haiku-5-5|x;route:admin;identity:certificate"),
                                 std::string("claude-haiku-5-5|a\tb"), std::string("claude-haiku-5-5|a\nb"),
                                 std::string("claude-haiku-5-5|a\x7f"), std::string("a;b|claude-haiku-5-5")}) {
    const auto pieces = splitChain(text);
    BOOST_TEST(!pieces.has_value());
    const auto plan = planDispatch(*sluice::testing::dispatchCatalog(), {text, std::nullopt});
    BOOST_REQUIRE(!plan.has_value());
    BOOST_TEST(plan.error().status == 400);
    BOOST_TEST(plan.error().key == "invalid_chain");
    BOOST_TEST(plan.error().message.find("';' or a control character") != std::string::npos, plan.error().message);
    // The refusal's route_match does not carry the text either.
    BOOST_TEST(joinRouteMatch(plan.error().route_match).find(';') == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(route_match_is_capped_whatever_the_chain) {
  // Forty long pieces, every one passed over: chain:<all of them> plus a skip: segment each.
  std::string text;
  for (int i = 0; i < 40; ++i) text += (text.empty() ? "" : "|") + std::string(90, 'a' + (i % 26)) + "/x";
  const auto plan = planDispatch(*sluice::testing::dispatchCatalog(), {text, std::nullopt});
  BOOST_REQUIRE(!plan.has_value());
  std::vector<std::string> segments = {"endpoint:messages", "chain:" + text};
  for (int i = 0; i < 40; ++i) segments.push_back("skip:" + std::string(90, 'a') + "=no_deployment");
  const std::string joined = joinRouteMatch(segments);
  BOOST_TEST(joined.size() <= sluice::dispatch::kMaxRouteMatch);
  BOOST_TEST(joined.starts_with("endpoint:messages;chain:"));
  BOOST_TEST(joined.ends_with("…"));
  // Short ones are untouched.
  BOOST_TEST(joinRouteMatch({"route:a", "failover:x->y"}) == "route:a;failover:x->y");
}

BOOST_AUTO_TEST_SUITE_END()
