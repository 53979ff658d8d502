#include "server/dispatch/strategy.h"

#include <cmath>
#include <deque>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "tests/server/dispatch/printers.h"

using sluice::catalog::Strategy;
using sluice::dispatch::Attempt;
using sluice::dispatch::BreakerState;
using sluice::dispatch::drawByWeight;
using sluice::dispatch::orderAttempts;
namespace data = boost::unit_test::data;


namespace {

// Attempts written as "name:weight:state:in_flight" separated by spaces, state one of C, O, H.
// The deployments live as long as the test binary so the attempts may point at them.
std::vector<Attempt> attempts(const std::string& spec) {
  static std::deque<sluice::catalog::Deployment> deployments;
  std::vector<Attempt> result;
  std::istringstream words(spec);
  std::string word;
  while (words >> word) {
    std::istringstream fields(word);
    std::string name, weight, state, in_flight;
    std::getline(fields, name, ':');
    std::getline(fields, weight, ':');
    std::getline(fields, state, ':');
    std::getline(fields, in_flight, ':');
    auto& deployment = deployments.emplace_back();
    deployment.endpoint_key = name;
    Attempt attempt;
    attempt.deployment = &deployment;
    attempt.weight = weight.empty() ? 1 : std::stoi(weight);
    attempt.breaker = state == "O" ? BreakerState::Open : state == "H" ? BreakerState::HalfOpen : BreakerState::Closed;
    attempt.in_flight = in_flight.empty() ? 0 : std::stoll(in_flight);
    result.push_back(attempt);
  }
  return result;
}

std::string names(const std::vector<Attempt>& ordered) {
  std::string text;
  for (const auto& attempt : ordered) text += (text.empty() ? "" : " ") + attempt.deployment->endpoint_key;
  return text;
}

struct OrderCase {
  std::string name;
  Strategy strategy;
  std::string spec;
  double draw;
  std::string expected;
};
std::ostream& operator<<(std::ostream& out, const OrderCase& c) { return out << c.name; }

constexpr auto Ordered = Strategy::Ordered;
constexpr auto Weighted = Strategy::Weighted;
constexpr auto LeastBusy = Strategy::LeastBusy;

const std::vector<OrderCase> kOrderCases = {
    // ordered
    {"ordered_keeps_declared_order", Ordered, "a:1:C b:1:C c:1:C", 0.9, "a b c"},
    {"ordered_ignores_weights_and_draw", Ordered, "a:1:C b:9:C c:5:C", 0.99, "a b c"},
    {"ordered_ignores_in_flight", Ordered, "a:1:C:50 b:1:C:0 c:1:C:9", 0.0, "a b c"},
    {"ordered_moves_an_open_first_to_the_end", Ordered, "a:1:O b:1:C c:1:C", 0.0, "b c a"},
    {"ordered_moves_an_open_middle_to_the_end", Ordered, "a:1:C b:1:O c:1:C", 0.0, "a c b"},
    {"ordered_keeps_an_open_last_last", Ordered, "a:1:C b:1:C c:1:O", 0.0, "a b c"},
    {"ordered_moves_several_open_to_the_end_in_order", Ordered, "a:1:O b:1:C c:1:O d:1:C", 0.0, "b d a c"},
    {"ordered_all_open_are_all_tried_in_order", Ordered, "a:1:O b:1:O c:1:O", 0.0, "a b c"},
    {"ordered_half_open_keeps_its_place", Ordered, "a:1:H b:1:C c:1:O", 0.0, "a b c"},
    {"ordered_half_open_behind_closed_keeps_its_place", Ordered, "a:1:C b:1:H c:1:C", 0.0, "a b c"},
    {"ordered_single", Ordered, "a:1:C", 0.5, "a"},
    {"ordered_single_open_is_still_tried", Ordered, "a:1:O", 0.5, "a"},
    {"ordered_empty", Ordered, "", 0.5, ""},
    // weighted: draw over closed weights 5,3,2 -> [0,.5) a, [.5,.8) b, [.8,1) c
    {"weighted_low_draw_picks_the_first_band", Weighted, "a:5:C b:3:C c:2:C", 0.0, "a b c"},
    {"weighted_draw_in_the_second_band", Weighted, "a:5:C b:3:C c:2:C", 0.5, "b a c"},
    {"weighted_draw_at_the_end_of_the_second_band", Weighted, "a:5:C b:3:C c:2:C", 0.79, "b a c"},
    {"weighted_draw_in_the_third_band", Weighted, "a:5:C b:3:C c:2:C", 0.8, "c a b"},
    {"weighted_top_draw", Weighted, "a:5:C b:3:C c:2:C", 0.999999, "c a b"},
    {"weighted_rest_follow_in_descending_weight", Weighted, "a:1:C b:2:C c:7:C", 0.0, "a c b"},
    {"weighted_rest_ties_keep_declared_order", Weighted, "a:2:C b:2:C c:2:C d:2:C", 0.3, "b a c d"},
    {"weighted_draws_among_closed_only", Weighted, "a:5:O b:3:C c:2:C", 0.0, "b c a"},
    {"weighted_draw_skips_open_weight", Weighted, "a:5:O b:3:C c:2:C", 0.7, "c b a"},
    {"weighted_open_go_last_in_declared_order", Weighted, "a:1:O b:9:O c:2:C", 0.5, "c a b"},
    {"weighted_all_open_tried_in_declared_order", Weighted, "a:1:O b:9:O c:5:O", 0.5, "a b c"},
    {"weighted_half_open_probe_goes_first", Weighted, "a:5:C b:3:H c:2:C", 0.0, "b a c"},
    {"weighted_half_open_probes_first_then_draw", Weighted, "a:5:C b:3:H c:2:C", 0.9, "b c a"},
    {"weighted_only_half_open_and_open", Weighted, "a:5:O b:3:H c:2:O", 0.1, "b a c"},
    {"weighted_draw_above_one_is_clamped", Weighted, "a:5:C b:3:C c:2:C", 7.0, "c a b"},
    {"weighted_negative_draw_is_clamped", Weighted, "a:5:C b:3:C c:2:C", -1.0, "a b c"},
    {"weighted_single_closed", Weighted, "a:4:C", 0.7, "a"},
    // least_busy
    {"least_busy_fewest_in_flight_first", LeastBusy, "a:1:C:5 b:1:C:2 c:1:C:9", 0.0, "b a c"},
    {"least_busy_ties_keep_declared_order", LeastBusy, "a:1:C:3 b:1:C:3 c:1:C:1", 0.0, "c a b"},
    {"least_busy_all_idle_is_declared_order", LeastBusy, "a:1:C:0 b:1:C:0 c:1:C:0", 0.0, "a b c"},
    {"least_busy_ignores_weights", LeastBusy, "a:9:C:4 b:1:C:1", 0.0, "b a"},
    {"least_busy_open_idle_still_goes_last", LeastBusy, "a:1:O:0 b:1:C:7 c:1:C:3", 0.0, "c b a"},
    {"least_busy_all_open_in_declared_order", LeastBusy, "a:1:O:9 b:1:O:0 c:1:O:4", 0.0, "a b c"},
    {"least_busy_half_open_probe_first", LeastBusy, "a:1:C:0 b:1:H:3 c:1:C:1", 0.0, "b a c"},
    {"least_busy_large_counts", LeastBusy, "a:1:C:100000 b:1:C:99999", 0.0, "b a"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(strategy)

BOOST_DATA_TEST_CASE(orders_attempts_by_strategy_and_health, data::make(kOrderCases), c) {
  const auto ordered = orderAttempts(attempts(c.spec), c.strategy, c.draw);
  BOOST_TEST(names(ordered) == c.expected);
}

struct DrawCase {
  std::vector<int> weights;
  double draw;
  size_t expected;
};
std::ostream& operator<<(std::ostream& out, const DrawCase& c) {
  out << "weights";
  for (int w : c.weights) out << ' ' << w;
  return out << " draw " << c.draw;
}

BOOST_DATA_TEST_CASE(draw_by_weight_boundaries_are_exact,
                     data::make(std::vector<DrawCase>{{{3, 1}, 0.0, 0},
                                                      {{3, 1}, 0.5, 0},
                                                      {{3, 1}, 0.7499, 0},
                                                      {{3, 1}, 0.75, 1},
                                                      {{3, 1}, 0.9999, 1},
                                                      {{3, 1}, 1.0, 1},
                                                      {{3, 1}, -0.1, 0},
                                                      {{1, 1, 1, 1}, 0.25, 1},
                                                      {{1, 1, 1, 1}, 0.5, 2},
                                                      {{1, 1, 1, 1}, 0.75, 3},
                                                      {{1}, 0.999, 0},
                                                      {{1, 100}, 0.0099, 0},
                                                      {{1, 100}, 0.01, 1},
                                                      {{100, 1}, 0.995, 1}}),
                     c) {
  BOOST_TEST(drawByWeight(c.weights, c.draw) == c.expected);
}

// Thousands of plans with a seeded generator: the first attempt's share matches its weight among
// the closed ones, an open one is never first, and the rest always follow in descending weight.
struct Proportions {
  std::string spec;
  std::map<std::string, double> expected_first;
};
std::ostream& operator<<(std::ostream& out, const Proportions& c) { return out << c.spec; }

BOOST_DATA_TEST_CASE(weighted_first_choices_follow_the_weights_statistically,
                     data::make(std::vector<Proportions>{
                         {"a:5:C b:3:C c:2:C", {{"a", 0.5}, {"b", 0.3}, {"c", 0.2}}},
                         {"a:3:C b:1:C", {{"a", 0.75}, {"b", 0.25}}},
                         {"a:1:C b:1:C c:1:C d:1:C", {{"a", 0.25}, {"b", 0.25}, {"c", 0.25}, {"d", 0.25}}},
                         {"a:5:O b:3:C c:2:C", {{"a", 0.0}, {"b", 0.6}, {"c", 0.4}}},
                         {"a:1:C b:99:C", {{"a", 0.01}, {"b", 0.99}}},
                         {"a:2:C b:2:O c:6:C", {{"a", 0.25}, {"b", 0.0}, {"c", 0.75}}},
                     }) * data::make({1u, 42u, 20240601u}),
                     c, seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  constexpr int kPlans = 20000;
  std::map<std::string, int> first;
  const auto input = attempts(c.spec);
  for (int i = 0; i < kPlans; ++i) {
    const auto ordered = orderAttempts(input, Strategy::Weighted, uniform(rng));
    BOOST_REQUIRE_EQUAL(ordered.size(), input.size());
    ++first[ordered.front().deployment->endpoint_key];
    // After the drawn one: closed by descending weight, then open ones.
    bool seen_open = false;
    for (size_t k = 1; k < ordered.size(); ++k) {
      if (ordered[k].breaker == BreakerState::Open) {
        seen_open = true;
        continue;
      }
      BOOST_REQUIRE(!seen_open);
      if (k >= 2 && ordered[k - 1].breaker != BreakerState::Open) BOOST_REQUIRE(ordered[k - 1].weight >= ordered[k].weight);
    }
  }
  for (const auto& [name, share] : c.expected_first) {
    const double observed = static_cast<double>(first[name]) / kPlans;
    BOOST_TEST_CONTEXT(name << " observed " << observed << " expected " << share) {
      BOOST_TEST(std::abs(observed - share) < 0.015);
    }
  }
}

// Orders are permutations: nothing is ever dropped or duplicated, whatever the health.
BOOST_DATA_TEST_CASE(every_strategy_returns_a_permutation,
                     data::make({Strategy::Ordered, Strategy::Weighted, Strategy::LeastBusy}) * data::xrange(0, 10),
                     strategy, seed) {
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  std::uniform_int_distribution<int> state(0, 2);
  std::uniform_int_distribution<int> weight(1, 9);
  std::uniform_int_distribution<int> busy(0, 20);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int round = 0; round < 200; ++round) {
    std::string spec;
    const int count = 1 + round % 6;
    for (int i = 0; i < count; ++i) {
      spec += std::string(1, static_cast<char>('a' + i)) + ":" + std::to_string(weight(rng)) + ":" +
              "COH"[state(rng)] + ":" + std::to_string(busy(rng)) + " ";
    }
    const auto input = attempts(spec);
    const auto ordered = orderAttempts(input, strategy, uniform(rng));
    BOOST_REQUIRE_EQUAL(ordered.size(), input.size());
    std::multiset<std::string> in_names, out_names;
    for (const auto& a : input) in_names.insert(a.deployment->endpoint_key);
    for (const auto& a : ordered) out_names.insert(a.deployment->endpoint_key);
    BOOST_REQUIRE(in_names == out_names);
    // Open ones are last, in declared order.
    std::string open_in, open_out;
    size_t first_open = ordered.size();
    for (size_t k = 0; k < ordered.size(); ++k) {
      if (ordered[k].breaker == BreakerState::Open) {
        first_open = std::min(first_open, k);
        open_out += ordered[k].deployment->endpoint_key;
      } else {
        BOOST_REQUIRE(first_open == ordered.size());
      }
    }
    for (const auto& a : input) {
      if (a.breaker == BreakerState::Open) open_in += a.deployment->endpoint_key;
    }
    BOOST_REQUIRE(open_in == open_out);
  }
}

BOOST_AUTO_TEST_SUITE_END()
