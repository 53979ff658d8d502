#include "server/dispatch/planner.h"

#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <tuple>

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "server/dispatch/failover.h"
#include "tests/server/dispatch/catalog_fixture.h"
#include "tests/server/dispatch/printers.h"
#include "tests/server/dispatch/resilience_fixture.h"

using sluice::dispatch::joinRouteMatch;
using sluice::dispatch::planDispatch;

BOOST_AUTO_TEST_SUITE(planner)

BOOST_AUTO_TEST_CASE(a_declared_model_takes_its_implicit_route_and_every_deployment_in_order) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->route->id == "deepseek-v4-pro");
  BOOST_REQUIRE_EQUAL(plan->attempts.size(), 2u);
  BOOST_TEST(plan->attempts[0].endpoint->key == "deepseek/api");
  BOOST_TEST(plan->attempts[1].endpoint->key == "opencode-go/chat");
  BOOST_TEST(plan->attempts[1].deployment->upstream_model == "ds-v4-pro");
  BOOST_TEST(plan->attempts[1].deployment->pricing.cache_read_per_million == 132000);
  BOOST_TEST(joinRouteMatch(plan->route_match) == "route:deepseek-v4-pro");
}

BOOST_AUTO_TEST_CASE(an_alias_route_resolves_to_its_model_pinned_to_its_deployments) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"go-deepseek-v4-pro", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->model_id == "deepseek-v4-pro");
  BOOST_REQUIRE_EQUAL(plan->attempts.size(), 1u);
  BOOST_TEST(plan->attempts[0].endpoint->key == "opencode-go/chat");
  BOOST_TEST((plan->attempts[0].credential->kind == sluice::catalog::CredentialKind::Personal));
}

BOOST_AUTO_TEST_CASE(a_scoped_route_applies_only_to_its_project) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto scoped = planDispatch(*catalog, {"claude-sonnet-5-5", std::string("odoo-delivery")});
  BOOST_REQUIRE(scoped.has_value());
  BOOST_TEST(joinRouteMatch(scoped->route_match) == "route:project-odoo-delivery;scope:project=odoo-delivery");
  const auto other = planDispatch(*catalog, {"claude-sonnet-5-5", std::string("another")});
  BOOST_REQUIRE(other.has_value());
  BOOST_TEST(other->route->id == "claude-sonnet-5-5");
}

BOOST_AUTO_TEST_CASE(the_context_marker_is_stripped_before_resolution) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"claude-sonnet-5-5[1m]", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->model_id == "claude-sonnet-5-5");
}

BOOST_AUTO_TEST_CASE(no_model_means_the_default_model) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto plan = planDispatch(*catalog, {"", std::nullopt});
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->model_id == "claude-sonnet-5-5");
}

BOOST_AUTO_TEST_CASE(unknown_and_retired_ids_are_refused_with_their_keys) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto unknown = planDispatch(*catalog, {"gpt-4o", std::nullopt});
  BOOST_REQUIRE(!unknown.has_value());
  BOOST_TEST(unknown.error().status == 404);
  BOOST_TEST(unknown.error().key == "model_not_found");
  BOOST_TEST(unknown.error().message.find("gpt-4o") != std::string::npos);
  const auto retired = planDispatch(*catalog, {"claude-sonnet-4-5", std::nullopt});
  BOOST_REQUIRE(!retired.has_value());
  BOOST_TEST(retired.error().key == "retired_model");
  BOOST_TEST(retired.error().message.find("claude-sonnet-5-5") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// Resilience rules: strategies, health, context windows, max_tokens, governance, who pays.

namespace {

namespace data = boost::unit_test::data;
using sluice::catalog::CredentialKind;
using sluice::dispatch::BreakerState;
using sluice::dispatch::Health;
using sluice::dispatch::Plan;
using sluice::dispatch::PlanRequest;

const sluice::catalog::Catalog& resilience() {
  static const auto catalog = sluice::testing::resilienceCatalog();
  return *catalog;
}

PlanRequest ask(std::string model) {
  PlanRequest request;
  request.requested_model = std::move(model);
  return request;
}

std::string endpoints(const Plan& plan) {
  std::string text;
  for (const auto& attempt : plan.attempts) text += (text.empty() ? "" : " ") + attempt.endpoint->key;
  return text;
}

Health health(std::initializer_list<std::tuple<std::string, BreakerState, int64_t>> entries) {
  Health snapshot;
  for (const auto& [key, state, in_flight] : entries) snapshot.endpoints[key] = {state, in_flight};
  return snapshot;
}

constexpr auto kClosed = BreakerState::Closed;
constexpr auto kOpen = BreakerState::Open;
constexpr auto kHalf = BreakerState::HalfOpen;

}  // namespace

BOOST_AUTO_TEST_SUITE(planner)

BOOST_AUTO_TEST_CASE(non_ordered_strategies_leave_their_segment_and_ordered_does_not) {
  const auto pool = planDispatch(resilience(), ask("pool-model"));
  BOOST_REQUIRE(pool.has_value());
  BOOST_TEST(joinRouteMatch(pool->route_match) == "route:pool;strategy:weighted");
  BOOST_TEST(pool->strategy == sluice::catalog::Strategy::Weighted);
  const auto busy = planDispatch(resilience(), ask("busy-model"));
  BOOST_REQUIRE(busy.has_value());
  BOOST_TEST(joinRouteMatch(busy->route_match) == "route:busy;strategy:least_busy");
  const auto chain = planDispatch(resilience(), ask("chain-model"));
  BOOST_REQUIRE(chain.has_value());
  BOOST_TEST(joinRouteMatch(chain->route_match) == "route:chain-model");
  BOOST_TEST(chain->strategy == sluice::catalog::Strategy::Ordered);
}

BOOST_AUTO_TEST_CASE(pinned_weights_reach_the_attempts) {
  const auto pool = planDispatch(resilience(), ask("pool-model"));
  BOOST_REQUIRE(pool.has_value());
  std::map<std::string, int> weights;
  for (const auto& attempt : pool->attempts) weights[attempt.endpoint->key] = attempt.weight;
  BOOST_TEST(weights["deepseek/api"] == 5);
  BOOST_TEST(weights["deepseek-eu/api"] == 3);
  BOOST_TEST(weights["fireworks/api"] == 2);
}

struct HealthCase {
  std::string name;
  std::string model;
  Health snapshot;
  double draw;
  std::string expected;
};
std::ostream& operator<<(std::ostream& out, const HealthCase& c) { return out << c.name; }

BOOST_DATA_TEST_CASE(
    health_orders_the_attempts,
    data::make(std::vector<HealthCase>{
        {"no_snapshot_means_all_closed", "chain-model", {}, 0.0, "deepseek/api deepseek-eu/api fireworks/api"},
        {"an_open_primary_goes_to_the_end", "chain-model", health({{"deepseek/api", kOpen, 0}}), 0.0,
         "deepseek-eu/api fireworks/api deepseek/api"},
        {"open_ones_keep_their_order_at_the_end", "chain-model",
         health({{"deepseek/api", kOpen, 0}, {"deepseek-eu/api", kOpen, 0}}), 0.0,
         "fireworks/api deepseek/api deepseek-eu/api"},
        {"all_open_are_all_tried_in_order", "chain-model",
         health({{"deepseek/api", kOpen, 0}, {"deepseek-eu/api", kOpen, 0}, {"fireworks/api", kOpen, 0}}), 0.0,
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"a_half_open_primary_is_probed_in_place", "chain-model", health({{"deepseek/api", kHalf, 0}}), 0.0,
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"unknown_endpoints_in_the_snapshot_are_ignored", "chain-model", health({{"nowhere/api", kOpen, 0}}), 0.0,
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"least_busy_first", "busy-model",
         health({{"deepseek/api", kClosed, 7}, {"deepseek-eu/api", kClosed, 2}, {"fireworks/api", kClosed, 4}}), 0.0,
         "deepseek-eu/api fireworks/api deepseek/api"},
        {"least_busy_skips_an_idle_open_one", "busy-model",
         health({{"deepseek/api", kClosed, 7}, {"deepseek-eu/api", kOpen, 0}, {"fireworks/api", kClosed, 4}}), 0.0,
         "fireworks/api deepseek/api deepseek-eu/api"},
        {"weighted_low_draw", "pool-model", {}, 0.1, "deepseek/api deepseek-eu/api fireworks/api"},
        {"weighted_middle_draw", "pool-model", {}, 0.6, "deepseek-eu/api deepseek/api fireworks/api"},
        {"weighted_high_draw", "pool-model", {}, 0.95, "fireworks/api deepseek/api deepseek-eu/api"},
        {"weighted_draws_among_closed_only", "pool-model", health({{"deepseek/api", kOpen, 0}}), 0.1,
         "deepseek-eu/api fireworks/api deepseek/api"},
        {"weighted_all_open_in_declared_order", "pool-model",
         health({{"deepseek/api", kOpen, 0}, {"deepseek-eu/api", kOpen, 0}, {"fireworks/api", kOpen, 0}}), 0.9,
         "deepseek/api deepseek-eu/api fireworks/api"},
    }),
    c) {
  PlanRequest request = ask(c.model);
  request.health = &c.snapshot;
  request.draw = c.draw;
  const auto plan = planDispatch(resilience(), request);
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(endpoints(*plan) == c.expected);
  for (const auto& attempt : plan->attempts) {
    BOOST_TEST((attempt.breaker == c.snapshot.of(attempt.endpoint->key).breaker));
    BOOST_TEST(attempt.in_flight == c.snapshot.of(attempt.endpoint->key).in_flight);
  }
}

BOOST_AUTO_TEST_CASE(weighted_plans_follow_the_route_weights_statistically) {
  std::mt19937_64 rng(20260101);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::map<std::string, int> first;
  constexpr int kPlans = 10000;
  for (int i = 0; i < kPlans; ++i) {
    PlanRequest request = ask("pool-model");
    request.draw = uniform(rng);
    const auto plan = planDispatch(resilience(), request);
    BOOST_REQUIRE(plan.has_value());
    BOOST_REQUIRE_EQUAL(plan->attempts.size(), 3u);
    ++first[plan->attempts.front().endpoint->key];
  }
  BOOST_TEST(std::abs(first["deepseek/api"] / double(kPlans) - 0.5) < 0.02);
  BOOST_TEST(std::abs(first["deepseek-eu/api"] / double(kPlans) - 0.3) < 0.02);
  BOOST_TEST(std::abs(first["fireworks/api"] / double(kPlans) - 0.2) < 0.02);
}

struct WindowCase {
  std::string name;
  std::string model;
  int64_t estimate;
  std::string served;       // "" when refused
  std::string route_match;  // of the plan, or of the refusal
  std::string endpoints;
};
std::ostream& operator<<(std::ostream& out, const WindowCase& c) { return out << c.name; }

BOOST_DATA_TEST_CASE(
    context_windows_fit_fall_back_or_refuse,
    data::make(std::vector<WindowCase>{
        {"an_empty_estimate_fits", "pool-model", 0, "pool-model", "route:pool;strategy:weighted",
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"a_request_below_the_window_fits", "pool-model", 7999, "pool-model", "route:pool;strategy:weighted",
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"a_request_exactly_at_the_window_fits", "pool-model", 8000, "pool-model", "route:pool;strategy:weighted",
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"one_token_over_goes_to_the_first_fitting_fallback_skipping_a_smaller_one", "pool-model", 8001, "mid-model",
         "route:pool;strategy:weighted;context_window:pool-model->mid-model", "anthropic/api"},
        {"the_fallback_is_planned_with_its_own_deployments", "pool-model", 32001, "big-model",
         "route:pool;strategy:weighted;context_window:pool-model->big-model", "anthropic/api deepseek-eu/api"},
        {"the_largest_fallback_at_its_limit", "pool-model", 200000, "big-model",
         "route:pool;strategy:weighted;context_window:pool-model->big-model", "anthropic/api deepseek-eu/api"},
        {"beyond_every_fallback_is_refused", "pool-model", 200001, "", "route:pool;strategy:weighted", ""},
        {"a_model_without_a_window_is_never_refused", "open-model", 1'000'000'000, "open-model", "route:open-model",
         "deepseek/api"},
        {"a_model_without_limits_is_never_refused", "chain-model", 5'000'000, "chain-model", "route:chain-model",
         "deepseek/api deepseek-eu/api fireworks/api"},
        {"an_ordered_route_falls_back_too", "mixed-model", 9000, "mid-model",
         "route:mixed;context_window:mixed-model->mid-model", "anthropic/api"},
        {"an_ordered_route_refuses_past_its_fallbacks", "mixed-model", 40000, "", "route:mixed", ""},
        {"a_route_without_fallbacks_refuses", "mid-model", 32001, "", "route:mid-model", ""},
        {"a_route_without_fallbacks_serves_what_fits", "mid-model", 32000, "mid-model", "route:mid-model",
         "anthropic/api"},
    }),
    c) {
  PlanRequest request = ask(c.model);
  request.estimated_input_tokens = c.estimate;
  const auto plan = planDispatch(resilience(), request);
  if (c.served.empty()) {
    BOOST_REQUIRE(!plan.has_value());
    BOOST_TEST(plan.error().status == 400);
    BOOST_TEST(plan.error().key == "context_window_exceeded");
    BOOST_TEST(joinRouteMatch(plan.error().route_match) == c.route_match);
    const auto* model = resilience().model(c.model);
    BOOST_TEST(plan.error().message.find(std::to_string(c.estimate)) != std::string::npos, plan.error().message);
    BOOST_TEST(plan.error().message.find(std::to_string(*model->limits.context_window)) != std::string::npos,
               plan.error().message);
    BOOST_TEST(plan.error().message.find("'" + c.model + "'") != std::string::npos, plan.error().message);
    return;
  }
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->model_id == c.served);
  BOOST_TEST(plan->model->id == c.served);
  BOOST_TEST(joinRouteMatch(plan->route_match) == c.route_match);
  BOOST_TEST(endpoints(*plan) == c.endpoints);
  BOOST_TEST(plan->estimated_input_tokens == c.estimate);
  if (c.served != c.model) {
    BOOST_REQUIRE(plan->context_fallback_from.has_value());
    BOOST_TEST(*plan->context_fallback_from == c.model);
    for (const auto& attempt : plan->attempts) BOOST_TEST(attempt.deployment->model_id == c.served);
  } else {
    BOOST_TEST(!plan->context_fallback_from.has_value());
  }
}

BOOST_AUTO_TEST_CASE(the_refusal_names_the_estimate_the_limit_and_the_model) {
  PlanRequest request = ask("mid-model");
  request.estimated_input_tokens = 123456;
  const auto plan = planDispatch(resilience(), request);
  BOOST_REQUIRE(!plan.has_value());
  BOOST_TEST(plan.error().message ==
             "the request is about 123456 input tokens (estimated), more than the context window of 32000 tokens "
             "of model 'mid-model'");
  const sluice::wire::ApiError& as_api_error = plan.error();  // a Refusal is an ApiError
  BOOST_TEST(as_api_error.status == 400);
}

struct ClampCase {
  std::string model;
  int64_t estimate;
  std::optional<int64_t> asked;
  std::optional<int64_t> sent;
  bool clamped;
};
std::ostream& operator<<(std::ostream& out, const ClampCase& c) {
  return out << c.model << " asked " << (c.asked ? std::to_string(*c.asked) : "none");
}

BOOST_DATA_TEST_CASE(max_tokens_is_clamped_to_the_serving_models_max_output,
                     data::make(std::vector<ClampCase>{
                         {"mid-model", 0, std::nullopt, std::nullopt, false},
                         {"mid-model", 0, 1, 1, false},
                         {"mid-model", 0, 100, 100, false},
                         {"mid-model", 0, 3999, 3999, false},
                         {"mid-model", 0, 4000, 4000, false},
                         {"mid-model", 0, 4001, 4000, true},
                         {"mid-model", 0, 1'000'000'000'000, 4000, true},
                         {"pool-model", 0, 2000, 2000, false},
                         {"pool-model", 0, 5000, 2000, true},
                         {"pool-model", 9000, 3000, 3000, false},  // served by mid-model: 4000
                         {"pool-model", 9000, 5000, 4000, true},
                         {"pool-model", 40000, 50000, 50000, false},  // served by big-model: 64000
                         {"pool-model", 40000, 70000, 64000, true},
                         {"chain-model", 0, 1'000'000, 1'000'000, false},  // no max_output
                         {"tiny-model", 0, 99999, 99999, false},           // a window but no max_output
                     }),
                     c) {
  PlanRequest request = ask(c.model);
  request.estimated_input_tokens = c.estimate;
  request.max_tokens = c.asked;
  const auto plan = planDispatch(resilience(), request);
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST((plan->max_tokens == c.sent));
  BOOST_TEST(plan->max_tokens_clamped == c.clamped);
}

namespace {

// A copy of the resilience catalog with governance edited: the boot check would refuse such a
// catalog, and the per-request check must hold anyway.
std::shared_ptr<sluice::catalog::Catalog> editable() {
  return std::make_shared<sluice::catalog::Catalog>(resilience());
}

sluice::catalog::Provider& providerOf(sluice::catalog::Catalog& catalog, const std::string& id) {
  for (auto& provider : catalog.providers) {
    if (provider.id == id) return provider;
  }
  throw std::runtime_error("no provider " + id);
}

sluice::catalog::Model& modelOf(sluice::catalog::Catalog& catalog, const std::string& id) {
  for (auto& model : catalog.models) {
    if (model.id == id) return model;
  }
  throw std::runtime_error("no model " + id);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_route_whose_deployments_satisfy_requires_keeps_them_all) {
  const auto plan = planDispatch(resilience(), ask("safe-model"));
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(endpoints(*plan) == "anthropic/api deepseek-eu/api");
  BOOST_TEST(joinRouteMatch(plan->route_match) == "route:safe");
}

BOOST_AUTO_TEST_CASE(governance_removes_the_attempts_that_fail_requires) {
  auto catalog = editable();
  providerOf(*catalog, "anthropic").governance.no_retain = false;
  const auto plan = planDispatch(*catalog, ask("safe-model"));
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(endpoints(*plan) == "deepseek-eu/api");
  BOOST_TEST(joinRouteMatch(plan->route_match) == "route:safe");
}

BOOST_AUTO_TEST_CASE(governance_denies_when_no_attempt_remains_with_the_requires_segment) {
  auto catalog = editable();
  providerOf(*catalog, "anthropic").governance.no_retain = false;
  providerOf(*catalog, "deepseek-eu").governance.no_retain = false;
  const auto plan = planDispatch(*catalog, ask("safe-model"));
  BOOST_REQUIRE(!plan.has_value());
  BOOST_TEST(plan.error().status == 403);
  BOOST_TEST(plan.error().key == "governance_denied");
  BOOST_TEST(joinRouteMatch(plan.error().route_match) == "route:safe;requires:no_retain");
  BOOST_TEST(plan.error().message ==
             "route 'safe' requires no_retain, and no deployment of model 'safe-model' satisfies it");
}

BOOST_AUTO_TEST_CASE(governance_uses_the_models_override_of_the_provider_flags) {
  auto denied = editable();
  modelOf(*denied, "safe-model").governance.no_retain = false;  // the model retains, wherever it runs
  const auto refused = planDispatch(*denied, ask("safe-model"));
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(joinRouteMatch(refused.error().route_match) == "route:safe;requires:no_retain");

  auto rescued = editable();
  providerOf(*rescued, "anthropic").governance.no_retain = false;
  providerOf(*rescued, "deepseek-eu").governance.no_retain = false;
  modelOf(*rescued, "safe-model").governance.no_retain = true;
  const auto served = planDispatch(*rescued, ask("safe-model"));
  BOOST_REQUIRE(served.has_value());
  BOOST_TEST(endpoints(*served) == "anthropic/api deepseek-eu/api");
}

BOOST_AUTO_TEST_CASE(a_european_requirement_denies_with_its_own_flag) {
  auto catalog = editable();
  providerOf(*catalog, "deepseek-eu").governance.european = false;
  const auto plan = planDispatch(*catalog, ask("eu-model"));
  BOOST_REQUIRE(!plan.has_value());
  BOOST_TEST(plan.error().key == "governance_denied");
  BOOST_TEST(joinRouteMatch(plan.error().route_match) == "route:eu;requires:european");
}

BOOST_AUTO_TEST_CASE(both_flags_are_named_when_both_fail) {
  auto catalog = editable();
  for (auto& route : catalog->routes) {
    if (route.id == "eu") route.requirements.no_retain = true;
  }
  auto& eu = providerOf(*catalog, "deepseek-eu");
  eu.governance.european = false;
  eu.governance.no_retain = false;
  const auto plan = planDispatch(*catalog, ask("eu-model"));
  BOOST_REQUIRE(!plan.has_value());
  BOOST_TEST(joinRouteMatch(plan.error().route_match) == "route:eu;requires:european;requires:no_retain");
  BOOST_TEST(plan.error().message.find("european and no_retain") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_route_without_requires_ignores_governance) {
  auto catalog = editable();
  for (auto& provider : catalog->providers) provider.governance = {};
  const auto plan = planDispatch(*catalog, ask("chain-model"));
  BOOST_REQUIRE(plan.has_value());
  BOOST_TEST(plan->attempts.size() == 3u);
}

BOOST_AUTO_TEST_CASE(each_attempt_says_who_pays) {
  const auto plan = planDispatch(resilience(), ask("mixed-model"));
  BOOST_REQUIRE(plan.has_value());
  BOOST_REQUIRE_EQUAL(plan->attempts.size(), 2u);
  BOOST_TEST((plan->attempts[0].paid_by == CredentialKind::Platform));
  BOOST_TEST((plan->attempts[1].paid_by == CredentialKind::Personal));
  BOOST_TEST(!sluice::dispatch::mayFailOver(plan->attempts[0], plan->attempts[1]));  // never platform -> personal
  BOOST_TEST(sluice::dispatch::mayFailOver(plan->attempts[1], plan->attempts[0]));
}

BOOST_AUTO_TEST_CASE(the_refusals_carry_the_segments_gathered_so_far) {
  const auto unknown = planDispatch(resilience(), ask("nope"));
  BOOST_REQUIRE(!unknown.has_value());
  BOOST_TEST(unknown.error().route_match.empty());
  BOOST_TEST(unknown.error().param.value_or("") == "model");
}

BOOST_AUTO_TEST_CASE(the_same_inputs_give_the_same_plan) {
  const Health snapshot = health({{"deepseek/api", kOpen, 3}, {"fireworks/api", kClosed, 1}});
  for (const char* model : {"pool-model", "busy-model", "chain-model", "mixed-model"}) {
    PlanRequest request = ask(model);
    request.health = &snapshot;
    request.draw = 0.37;
    request.estimated_input_tokens = 100;
    const auto a = planDispatch(resilience(), request);
    const auto b = planDispatch(resilience(), request);
    BOOST_REQUIRE(a.has_value());
    BOOST_REQUIRE(b.has_value());
    BOOST_TEST(endpoints(*a) == endpoints(*b));
    BOOST_TEST(a->route_match == b->route_match, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_SUITE_END()
