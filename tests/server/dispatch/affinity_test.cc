#include "server/dispatch/affinity.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using sluice::dispatch::AffinityResult;
using sluice::dispatch::Attempt;
using sluice::dispatch::BreakerState;
using sluice::dispatch::pinConversation;

namespace {

// Deployments named `names` with `weights`, all Closed; they live as long as the test binary.
std::vector<Attempt> pool(const std::vector<std::string>& names, const std::vector<int>& weights = {}) {
  static std::deque<sluice::catalog::Deployment> deployments;
  std::vector<Attempt> result;
  for (size_t i = 0; i < names.size(); ++i) {
    auto& deployment = deployments.emplace_back();
    deployment.endpoint_key = names[i];
    Attempt attempt;
    attempt.deployment = &deployment;
    attempt.weight = weights.empty() ? 1 : weights[i];
    result.push_back(attempt);
  }
  return result;
}

std::string lead(std::vector<Attempt> attempts, const std::string& key, int64_t ttl = 0, int64_t now = 0) {
  pinConversation(attempts, key, ttl, now);
  return attempts.front().deployment->endpoint_key;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(affinity)

BOOST_AUTO_TEST_CASE(every_turn_of_a_conversation_leads_with_the_same_deployment_whatever_the_order_given) {
  const auto forward = pool({"a/api", "b/api", "c/api"});
  const auto backward = std::vector<Attempt>(forward.rbegin(), forward.rend());
  for (int i = 0; i < 200; ++i) {
    const std::string key = "claude-code-session:" + std::to_string(i);
    BOOST_TEST(lead(forward, key) == lead(backward, key));  // the strategy's draw does not matter
    BOOST_TEST(lead(forward, key) == lead(forward, key));
  }
}

BOOST_AUTO_TEST_CASE(the_rest_keep_their_order_and_nothing_is_dropped) {
  auto attempts = pool({"a/api", "b/api", "c/api", "d/api"});
  const auto result = pinConversation(attempts, std::string("k"), 0, 0);
  BOOST_TEST((result == AffinityResult::Hit));
  BOOST_TEST(attempts.size() == 4u);
  std::vector<std::string> rest;
  for (size_t i = 1; i < attempts.size(); ++i) rest.push_back(attempts[i].deployment->endpoint_key);
  BOOST_TEST(std::is_sorted(rest.begin(), rest.end()));
}

BOOST_AUTO_TEST_CASE(conversations_spread_by_weight) {
  const auto attempts = pool({"big/api", "small/api"}, {3, 1});
  std::map<std::string, int> led;
  constexpr int kConversations = 20000;
  for (int i = 0; i < kConversations; ++i) ++led[lead(attempts, "conversation-" + std::to_string(i))];
  const double share = static_cast<double>(led["big/api"]) / kConversations;
  BOOST_TEST(share > 0.73);
  BOOST_TEST(share < 0.77);
}

BOOST_AUTO_TEST_CASE(an_open_breaker_repins_to_the_same_next_deployment_and_the_conversation_comes_back) {
  auto attempts = pool({"a/api", "b/api", "c/api"});
  for (int i = 0; i < 100; ++i) {
    const std::string key = "s" + std::to_string(i);
    const std::string pinned = lead(attempts, key);
    auto broken = attempts;
    for (auto& attempt : broken) {
      if (attempt.deployment->endpoint_key == pinned) attempt.breaker = BreakerState::Open;
    }
    auto first = broken;
    BOOST_TEST((pinConversation(first, key, 0, 0) == AffinityResult::Repinned));
    BOOST_TEST(first.front().deployment->endpoint_key != pinned);
    BOOST_TEST(lead(broken, key) == first.front().deployment->endpoint_key);  // every replica agrees
    BOOST_TEST(lead(attempts, key) == pinned);                                 // breaker closed: back
  }
  auto all_open = pool({"a/api", "b/api"});
  for (auto& attempt : all_open) attempt.breaker = BreakerState::Open;
  BOOST_TEST((pinConversation(all_open, std::string("k"), 0, 0) == AffinityResult::Hit));
}

BOOST_AUTO_TEST_CASE(adding_a_deployment_moves_only_the_conversations_it_wins) {
  const auto two = pool({"a/api", "b/api"});
  const auto three = pool({"a/api", "b/api", "c/api"});
  int moved_elsewhere = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "c" + std::to_string(i);
    const std::string after = lead(three, key);
    if (after != "c/api" && after != lead(two, key)) ++moved_elsewhere;
  }
  BOOST_TEST(moved_elsewhere == 0);
}

BOOST_AUTO_TEST_CASE(without_a_key_the_strategys_order_stands) {
  auto attempts = pool({"a/api", "b/api"});
  BOOST_TEST((pinConversation(attempts, std::nullopt, 0, 0) == AffinityResult::Miss));
  BOOST_TEST((pinConversation(attempts, std::string(), 0, 0) == AffinityResult::Miss));
  BOOST_TEST(attempts.front().deployment->endpoint_key == "a/api");
}

BOOST_AUTO_TEST_CASE(a_ttl_repins_each_conversation_at_its_own_moment) {
  const auto attempts = pool({"a/api", "b/api", "c/api", "d/api"});
  int changed_within = 0;
  int changed_across = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string key = "t" + std::to_string(i);
    // Within one bucket nothing moves; over many buckets most conversations move at least once.
    std::string last;
    bool moved = false;
    for (int64_t now = 0; now < 36000; now += 600) {
      const std::string at = lead(attempts, key, 3600, now);
      if (!last.empty() && at != last) moved = true;
      last = at;
    }
    changed_across += moved ? 1 : 0;
    const auto bucket_start = static_cast<int64_t>(sluice::dispatch::stableHash(key) % 3600);
    if (lead(attempts, key, 3600, 7200 - bucket_start) != lead(attempts, key, 3600, 7200 - bucket_start + 3599)) {
      ++changed_within;
    }
  }
  BOOST_TEST(changed_within == 0);
  BOOST_TEST(changed_across > 300);
}

BOOST_AUTO_TEST_CASE(the_hash_is_the_same_on_every_machine) {
  // Fixed values: a change here re-pins every conversation in every running fleet.
  BOOST_TEST(sluice::dispatch::stableHash("") == 0xf52a15e9a9b5e89bull);
  BOOST_TEST(sluice::dispatch::stableHash("session-1") == 0x8f9d4a83e2384785ull);
}

BOOST_AUTO_TEST_CASE(the_conversation_key_prefers_what_the_client_names_then_the_conversations_prefix) {
  using sluice::dispatch::ConversationHints;
  using sluice::dispatch::conversationKey;
  sluice::wire::Request request;
  request.system.push_back({});
  request.system.back().text = "be brief";
  sluice::wire::Message user;
  user.role = sluice::wire::Role::User;
  user.content.push_back({});
  user.content.back().type = sluice::wire::ContentBlock::Type::Text;
  user.content.back().text = "first question";
  request.messages.push_back(user);
  ConversationHints hints;
  hints.requested_model = "m";
  hints.session_headers = {{"x-claude-code-session-id", ""}, {"session_id", "abc"}};
  BOOST_TEST(*conversationKey(hints, nullptr) == "session_id:abc");  // a header needs no body
  hints.session_headers[1].second = std::string(257, 'x');            // too long to be a session
  BOOST_TEST(!conversationKey(hints, nullptr).has_value());
  hints.prompt_cache_key = "pck";
  BOOST_TEST(*conversationKey(hints, &request) == "prompt_cache_key:pck");
  hints.prompt_cache_key.reset();
  request.user = "user_1_session_9";
  BOOST_TEST(*conversationKey(hints, &request) == "user:user_1_session_9");
  request.user.reset();
  BOOST_TEST(*conversationKey(hints, &request) == "prefix:m\nbe brief\nfirst question");
  request.system.clear();
  request.messages.clear();
  BOOST_TEST(!conversationKey(hints, &request).has_value());  // nothing but the model
}

BOOST_AUTO_TEST_SUITE_END()
