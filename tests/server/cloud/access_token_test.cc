// The token cache every cloud credential shares (server/cloud/access_token.h): refreshed ahead of
// expiry, fetched once for many callers, a failure remembered briefly; and the token endpoint's
// answer read without trusting it.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "server/cloud/access_token.h"

namespace sluice::cloud {
namespace {

using Clock = std::chrono::system_clock;
using namespace std::chrono_literals;

// A cache on a clock the test moves, and a fetch that counts and gives tokens living `life`.
struct Fixture {
  Clock::time_point now = Clock::time_point(std::chrono::seconds(1'800'000'000));
  TokenCache cache;
  int fetches = 0;
  Fixture() { cache.setClock([this] { return now; }); }
  TokenCache::Fetch counting(Clock::duration life) {
    return [this, life]() -> std::expected<AccessToken, std::string> {
      ++fetches;
      return AccessToken{"token-" + std::to_string(fetches), now + life};
    };
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(access_token)

BOOST_FIXTURE_TEST_CASE(a_token_is_reused_until_its_refresh_margin_then_fetched_again, Fixture) {
  const auto fetch = counting(1h);
  BOOST_TEST(cache.get("k", fetch).value() == "token-1");
  now += 54min;  // six minutes left: still fresh
  BOOST_TEST(cache.get("k", fetch).value() == "token-1");
  now += 2min;  // four minutes left: refreshed ahead of expiry
  BOOST_TEST(cache.get("k", fetch).value() == "token-2");
  BOOST_TEST(fetches == 2);
  BOOST_TEST(cache.get("other", fetch).value() == "token-3");  // each credential its own
}

BOOST_FIXTURE_TEST_CASE(a_refused_token_is_forgotten_but_a_newer_one_kept, Fixture) {
  const auto fetch = counting(1h);
  BOOST_TEST(cache.get("k", fetch).value() == "token-1");
  cache.forget("k", "token-1");
  BOOST_TEST(cache.get("k", fetch).value() == "token-2");  // fetched again at once
  cache.forget("k", "token-1");                            // a caller late with the old one
  BOOST_TEST(cache.get("k", fetch).value() == "token-2");
  BOOST_TEST(fetches == 2);
}

BOOST_FIXTURE_TEST_CASE(a_short_lived_token_is_refreshed_at_half_its_life, Fixture) {
  const auto fetch = counting(4s);
  BOOST_TEST(cache.get("k", fetch).value() == "token-1");
  now += 1s;
  BOOST_TEST(cache.get("k", fetch).value() == "token-1");
  now += 2s;  // one second left of four
  BOOST_TEST(cache.get("k", fetch).value() == "token-2");
}

BOOST_AUTO_TEST_CASE(many_callers_at_once_share_one_fetch) {
  TokenCache cache;
  std::atomic<int> fetches{0};
  const auto fetch = [&]() -> std::expected<AccessToken, std::string> {
    ++fetches;
    std::this_thread::sleep_for(100ms);
    return AccessToken{"shared", Clock::now() + 1h};
  };
  std::vector<std::thread> callers;
  std::atomic<int> got{0};
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&] {
      if (cache.get("k", fetch).value_or("") == "shared") ++got;
    });
  }
  for (auto& caller : callers) caller.join();
  BOOST_TEST(fetches.load() == 1);
  BOOST_TEST(got.load() == 8);
}

BOOST_FIXTURE_TEST_CASE(a_failed_fetch_is_remembered_for_a_second_then_tried_again, Fixture) {
  const auto failing = [&]() -> std::expected<AccessToken, std::string> {
    ++fetches;
    return std::unexpected("the token endpoint answered 401 invalid_client");
  };
  BOOST_TEST(cache.get("k", failing).error() == "the token endpoint answered 401 invalid_client");
  BOOST_TEST(!cache.get("k", failing).has_value());
  BOOST_TEST(fetches == 1);
  BOOST_TEST(cache.standing("k").error() == "the token endpoint answered 401 invalid_client");
  now += 2s;
  BOOST_TEST(!cache.get("k", failing).has_value());
  BOOST_TEST(fetches == 2);
  const auto throwing = []() -> std::expected<AccessToken, std::string> { throw std::runtime_error("secret-ish"); };
  now += 2s;
  BOOST_TEST(cache.get("k", throwing).error() == "the token fetch failed");
}

BOOST_AUTO_TEST_CASE(the_token_answer_is_read_without_trusting_it) {
  const auto now = Clock::now();
  const auto token = readTokenAnswer(200, R"({"access_token":"ya29.a","expires_in":"3599","token_type":"Bearer"})", now);
  BOOST_REQUIRE(token.has_value());
  BOOST_TEST(token->value == "ya29.a");
  BOOST_TEST((token->expires == now + 3599s));
  BOOST_TEST(readTokenAnswer(200, R"({"expires_in":3600})", now).error() == "the token endpoint's answer has no access_token");
  BOOST_TEST(readTokenAnswer(200, R"({"access_token":"a b","expires_in":3600})", now).error() ==
             "the token endpoint's access_token is not printable");
  BOOST_TEST(readTokenAnswer(200, R"({"access_token":"a","expires_in":-5})", now).error() ==
             "the token endpoint's expires_in is not valid");
  BOOST_TEST(readTokenAnswer(200, "not json", now).error() == "the token endpoint's answer is not a JSON object");
  // An error names the endpoint's code only: its description could carry anything.
  BOOST_TEST(readTokenAnswer(401, R"({"error":"invalid_client","error_description":"secret abc is wrong"})", now)
                 .error() == "the token endpoint answered 401 invalid_client");
  BOOST_TEST(readTokenAnswer(403, R"({"error":{"code":403,"status":"PERMISSION_DENIED","message":"m"}})", now).error() ==
             "the token endpoint answered 403 PERMISSION_DENIED");
  BOOST_TEST(readTokenAnswer(502, "<html>", now).error() == "the token endpoint answered 502");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::cloud
