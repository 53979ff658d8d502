#include "server/identity/authenticator.h"

#include <atomic>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "server/identity/api_keys.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/net/fiber.h"
#include "tests/server/identity/identity_database.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::identityDatabase;
using test::kTestNow;

namespace {

std::string newKey(const std::string& user, std::optional<std::string> project = std::nullopt,
                   std::optional<system_clock::time_point> expires_at = std::nullopt) {
  NewApiKey request;
  request.user = user;
  request.project = std::move(project);
  request.expires_at = expires_at;
  return createApiKey(test::members(), test::keys(), request, kTestNow).value().key;
}

std::unique_ptr<Authenticator> newAuthenticator() {
  return std::make_unique<Authenticator>(test::keyDirectory(), nullptr);
}

void exec(const std::string& sql) {
  auto connection = identityDatabase().connect();
  pqxx::nontransaction query(*connection);
  query.exec(sql);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(authenticator)

BOOST_AUTO_TEST_CASE(a_certificate_maps_to_the_member_its_names_stand_for) {
  test::addTestMember("au-cert", {"research"}, {"ml"});
  BOOST_REQUIRE(addCertSubject(test::members(), "au-cert", "uri:spiffe://corp/au-cert", kTestNow).has_value());
  BOOST_REQUIRE(addCertSubject(test::members(), "au-cert", "email:au-cert@corp.example", kTestNow).has_value());
  auto auth = newAuthenticator();
  CertificateNames names;
  names.common_name = "unmapped-cn";
  names.uris = {"spiffe://corp/au-cert"};
  const auto caller = auth->authenticateCertificate(subjectsOf(names), kTestNow);
  BOOST_REQUIRE_MESSAGE(caller.has_value(), caller.error().message);
  BOOST_TEST(caller->user == "au-cert");
  BOOST_TEST(caller->groups == (std::vector<std::string>{"ml"}));
  BOOST_TEST(caller->api_key_id.empty());
  BOOST_TEST((caller->source == IdentitySource::Certificate));
  BOOST_TEST(caller->subject == "uri:spiffe://corp/au-cert");

  // The same names again within the TTL: no second query.
  const auto queries = auth->stats().member_queries;
  BOOST_TEST(auth->authenticateCertificate(subjectsOf(names), kTestNow + milliseconds(500)).has_value());
  BOOST_TEST(auth->stats().member_queries == queries);

  CertificateNames stranger;
  stranger.common_name = "au-nobody";
  const auto unmapped = auth->authenticateCertificate(subjectsOf(stranger), kTestNow);
  BOOST_REQUIRE(!unmapped.has_value());
  BOOST_TEST((unmapped.error().reason == AuthFailureReason::UnmappedCertificate));
  BOOST_TEST((auth->authenticateCertificate({}, kTestNow).error().reason == AuthFailureReason::UnmappedCertificate));
}

BOOST_AUTO_TEST_CASE(a_certificate_naming_two_members_or_a_disabled_one_is_refused) {
  test::addTestMember("au-cert-a");
  test::addTestMember("au-cert-b");
  BOOST_REQUIRE(addCertSubject(test::members(), "au-cert-a", "cn:au-cert-a", kTestNow).has_value());
  BOOST_REQUIRE(addCertSubject(test::members(), "au-cert-b", "email:b@corp.example", kTestNow).has_value());
  auto auth = newAuthenticator();
  CertificateNames both;
  both.common_name = "au-cert-a";
  both.emails = {"b@corp.example"};
  const auto ambiguous = auth->authenticateCertificate(subjectsOf(both), kTestNow);
  BOOST_REQUIRE(!ambiguous.has_value());
  BOOST_TEST((ambiguous.error().reason == AuthFailureReason::AmbiguousCertificate));

  disableMember(test::members(), "au-cert-a", kTestNow);
  CertificateNames only_a;
  only_a.common_name = "au-cert-a";
  const auto disabled = auth->authenticateCertificate(subjectsOf(only_a), kTestNow);
  BOOST_REQUIRE(!disabled.has_value());
  BOOST_TEST((disabled.error().reason == AuthFailureReason::MemberDisabled));
}

BOOST_AUTO_TEST_CASE(a_trusted_proxy_names_a_member_by_name_or_email) {
  test::addTestMember("au-proxied", {"research"});
  BOOST_REQUIRE(addCertSubject(test::members(), "au-proxied", "email:proxied@corp.example", kTestNow).has_value());
  auto auth = newAuthenticator();
  const auto by_name = auth->authenticateProxy("au-proxied", false, kTestNow);
  BOOST_REQUIRE_MESSAGE(by_name.has_value(), by_name.error().message);
  BOOST_TEST(by_name->user == "au-proxied");
  BOOST_TEST((by_name->source == IdentitySource::Proxy));
  BOOST_TEST(by_name->subject == "name:au-proxied");
  const auto by_email = auth->authenticateProxy("Proxied@Corp.Example", true, kTestNow);
  BOOST_REQUIRE_MESSAGE(by_email.has_value(), by_email.error().message);
  BOOST_TEST(by_email->user == "au-proxied");
  BOOST_TEST(by_email->subject == "email:proxied@corp.example");
  // A name is not an e-mail subject and the other way round; unknown and malformed names fail.
  BOOST_TEST((auth->authenticateProxy("proxied@corp.example", false, kTestNow).error().reason ==
              AuthFailureReason::UnknownMember));
  BOOST_TEST((auth->authenticateProxy("au-proxied", true, kTestNow).error().reason == AuthFailureReason::UnknownMember));
  BOOST_TEST((auth->authenticateProxy("no such member", false, kTestNow).error().reason ==
              AuthFailureReason::UnknownMember));
}

BOOST_AUTO_TEST_CASE(a_valid_key_yields_the_member_and_the_key) {
  test::addTestMember("au-alice", {"odoo-delivery", "research"}, {"engineering"}, Role::Admin);
  const std::string key = newKey("au-alice", "odoo-delivery");
  auto auth = newAuthenticator();
  const auto caller = auth->authenticate(key, kTestNow);
  BOOST_REQUIRE_MESSAGE(caller.has_value(), caller.error().message);
  BOOST_TEST(caller->user == "au-alice");
  BOOST_TEST((caller->role == Role::Admin));
  BOOST_TEST(caller->groups == (std::vector<std::string>{"engineering"}));
  BOOST_TEST(caller->projects == (std::vector<std::string>{"odoo-delivery", "research"}));
  BOOST_TEST(caller->primary_project.value() == "odoo-delivery");
  BOOST_TEST(caller->key_project.value() == "odoo-delivery");
  BOOST_TEST(caller->api_key_id == parseApiKey(key)->id);
  BOOST_TEST(identityDatabase().scalar("SELECT last_used_at IS NOT NULL FROM api_keys WHERE id = '" +
                                       caller->api_key_id + "'") == "t");
}

BOOST_AUTO_TEST_CASE(missing_malformed_and_unknown_keys_fail_without_echoing_the_key) {
  auto auth = newAuthenticator();
  BOOST_TEST((auth->authenticate("", kTestNow).error().reason == AuthFailureReason::Missing));
  const std::string malformed = "sk-ant-api03-very-secret-value";
  const auto bad = auth->authenticate(malformed, kTestNow);
  BOOST_TEST((bad.error().reason == AuthFailureReason::Malformed));
  BOOST_TEST(bad.error().message.find("very-secret") == std::string::npos);
  const std::string unknown = generateApiKey().key;
  const auto missing = auth->authenticate(unknown, kTestNow);
  BOOST_TEST((missing.error().reason == AuthFailureReason::Unknown));
  BOOST_TEST(missing.error().message == "invalid API key");
  BOOST_TEST(toString(missing.error().reason) == "unknown_key");
}

BOOST_AUTO_TEST_CASE(row4_a_key_found_by_id_admits_its_member_until_revoked_expired_or_disabled) {
  test::addTestMember("au-row4", {}, {}, Role::Admin);
  const std::string key = newKey("au-row4", std::nullopt, kTestNow + hours(1));
  const std::string id(parseApiKey(key)->id);
  const auto state = [&](system_clock::time_point now) {
    return keyAdmits(findKeyById(*test::keyDirectory(), id), now);
  };
  const auto admitted = state(kTestNow);
  BOOST_REQUIRE(admitted.has_value());
  BOOST_TEST(admitted->user == "au-row4");
  BOOST_TEST((admitted->role == Role::Admin));
  BOOST_TEST(admitted->api_key_id == id);
  BOOST_TEST((state(kTestNow + hours(1)).error() == KeyRefusal::Expired));
  exec("UPDATE members SET disabled_at = now() WHERE name = 'au-row4'");
  BOOST_TEST((state(kTestNow).error() == KeyRefusal::MemberDisabled));
  BOOST_REQUIRE((revokeApiKey(test::keys(), id, kTestNow) == RevokeResult::Revoked));
  BOOST_TEST((state(kTestNow).error() == KeyRefusal::Revoked));
  BOOST_TEST(!findKeyById(*test::keyDirectory(), "00000000").has_value());
  BOOST_TEST((keyAdmits(std::nullopt, kTestNow).error() == KeyRefusal::Unknown));
}

BOOST_AUTO_TEST_CASE(revocation_takes_effect_after_the_cache_ttl) {
  test::addTestMember("au-bob");
  const std::string key = newKey("au-bob");
  auto auth = newAuthenticator();
  BOOST_REQUIRE(auth->authenticate(key, kTestNow).has_value());
  revokeApiKey(test::keys(), parseApiKey(key)->id, kTestNow);
  // Within the TTL the cached answer stands...
  BOOST_TEST(auth->authenticate(key, kTestNow + milliseconds(1999)).has_value());
  // ...after it, the key is refused; 2 s < the 5 s promised on every replica.
  const auto revoked = auth->authenticate(key, kTestNow + milliseconds(2000));
  BOOST_REQUIRE(!revoked.has_value());
  BOOST_TEST((revoked.error().reason == AuthFailureReason::Revoked));
  BOOST_TEST(revoked.error().message == "API key sk-sluice-" + std::string(parseApiKey(key)->id) + " was revoked");
  // A fresh authenticator (another replica) refuses it at once.
  BOOST_TEST((newAuthenticator()->authenticate(key, kTestNow).error().reason == AuthFailureReason::Revoked));
}

BOOST_AUTO_TEST_CASE(expiry_is_exact_even_when_cached) {
  test::addTestMember("au-carol");
  const std::string key = newKey("au-carol", std::nullopt, kTestNow + seconds(10));
  auto auth = newAuthenticator();
  BOOST_TEST(auth->authenticate(key, kTestNow + seconds(9)).has_value());
  const auto expired = auth->authenticate(key, kTestNow + seconds(10));
  BOOST_TEST((expired.error().reason == AuthFailureReason::Expired));
  BOOST_TEST(expired.error().message.find("has expired") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_disabled_member_is_refused_after_the_ttl) {
  test::addTestMember("au-dave");
  const std::string key = newKey("au-dave");
  auto auth = newAuthenticator();
  BOOST_REQUIRE(auth->authenticate(key, kTestNow).has_value());
  disableMember(test::members(), "au-dave", kTestNow);
  const auto refused = auth->authenticate(key, kTestNow + seconds(3));
  BOOST_TEST((refused.error().reason == AuthFailureReason::MemberDisabled));
}

BOOST_AUTO_TEST_CASE(positive_and_negative_answers_are_cached_for_the_ttl) {
  test::addTestMember("au-erin");
  const std::string key = newKey("au-erin");
  const std::string unknown = generateApiKey().key;
  auto auth = newAuthenticator();
  for (int i = 0; i < 100; ++i) {
    const auto at = kTestNow + milliseconds(i * 10);  // all within one TTL
    BOOST_REQUIRE(auth->authenticate(key, at).has_value());
    BOOST_REQUIRE(!auth->authenticate(unknown, at).has_value());
  }
  BOOST_TEST(auth->stats().key_lookups == 200u);
  BOOST_TEST(auth->stats().key_queries == 2u);
  auth->authenticate(key, kTestNow + seconds(2));
  BOOST_TEST(auth->stats().key_queries == 3u);
  // A clock stepped back by more than the TTL does not extend an entry's life.
  auth->authenticate(key, kTestNow - milliseconds(100));
  BOOST_TEST(auth->stats().key_queries == 4u);
  // The TTL cannot be set above 2 s.
  AuthenticatorOptions options;
  options.cache_ttl = seconds(30);
  Authenticator capped(test::keyDirectory(), nullptr, options);
  capped.authenticate(key, kTestNow);
  capped.authenticate(key, kTestNow + seconds(2));
  BOOST_TEST(capped.stats().key_queries == 2u);
}

BOOST_AUTO_TEST_CASE(many_threads_share_one_authenticator) {
  test::addTestMember("au-frank");
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) keys.push_back(newKey("au-frank"));
  auto auth = newAuthenticator();
  std::atomic<int> ok{0};
  std::atomic<int> ticks{0};  // one simulated clock for all threads: 1 ms per call, 3.2 s in all
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const auto now = kTestNow + milliseconds(ticks++);
        if (auth->authenticate(keys[(t + i) % keys.size()], now).has_value()) ++ok;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(ok.load() == 16 * 200);
  // Two TTLs, 4 keys, at worst every thread racing on each miss.
  BOOST_TEST(auth->stats().key_queries <= 2u * 4u * 16u, auth->stats().key_queries << " queries");
}

// A burst of connections presenting a key the cache has not seen: one query, every caller served.
BOOST_AUTO_TEST_CASE(simultaneous_misses_of_one_key_make_one_query_from_threads) {
  test::addTestMember("au-heidi");
  const std::string key = newKey("au-heidi");
  auto auth = newAuthenticator();
  std::atomic<int> ready{0};
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 32; ++t) {
    threads.emplace_back([&] {
      ++ready;
      while (ready.load() < 32) std::this_thread::yield();
      if (auth->authenticate(key, kTestNow).has_value()) ++ok;
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(ok.load() == 32);
  BOOST_TEST(auth->stats().key_lookups == 32u);
  BOOST_TEST(auth->stats().key_queries == 1u);
}

BOOST_AUTO_TEST_CASE(simultaneous_misses_of_one_key_make_one_query_from_fibers) {
  test::addTestMember("au-ivan");
  const std::string key = newKey("au-ivan");
  const std::string unknown = generateApiKey().key;
  auto auth = newAuthenticator();
  std::atomic<int> ok{0};
  std::atomic<int> refused{0};
  std::atomic<int> finished{0};
  {
    net::fiber::Loop loop({2});
    // Spawned before any can finish its lookup: the query goes through a helper thread, so the
    // leader's fiber parks and the others reach the cache while it is out.
    for (int i = 0; i < 64; ++i) {
      loop.spawn([&, i] {
        const auto result = auth->authenticate(i % 2 == 0 ? key : unknown, kTestNow);
        if (result.has_value()) ++ok;
        else if (result.error().reason == AuthFailureReason::Unknown) ++refused;
        ++finished;
      });
    }
    const auto deadline = steady_clock::now() + seconds(20);
    while (finished.load() < 64 && steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(5));
  }
  BOOST_TEST(ok.load() == 32);
  BOOST_TEST(refused.load() == 32);
  // One query per key at most twice: a fiber spawned after its key's answer landed hits the cache.
  BOOST_TEST(auth->stats().key_queries == 2u);
  BOOST_TEST(auth->stats().key_shared + auth->stats().key_queries <= 64u);
}

// The callers waiting on a lookup that fails get its error, and the failure is not remembered.
BOOST_AUTO_TEST_CASE(callers_sharing_a_failed_lookup_all_get_its_error) {
  store::PoolOptions pool;
  pool.connect_timeout_seconds = 1;
  Authenticator auth(test::keyDirectory("postgresql://sluice:sluice@127.0.0.1:1/none", pool), nullptr);
  const std::string key = generateApiKey().key;
  std::atomic<int> threw{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      try {
        auth.authenticate(key, kTestNow);
      } catch (const pqxx::broken_connection&) {
        ++threw;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(threw.load() == 8);
  const auto queries = auth.stats().key_queries;
  BOOST_CHECK_THROW(auth.authenticate(key, kTestNow), pqxx::broken_connection);
  BOOST_TEST(auth.stats().key_queries == queries + 1);
}

BOOST_AUTO_TEST_CASE(survives_the_database_dropping_its_connections) {
  test::addTestMember("au-grace");
  const std::string first = newKey("au-grace");
  const std::string second = newKey("au-grace");
  auto auth = newAuthenticator();
  BOOST_REQUIRE(auth->authenticate(first, kTestNow).has_value());
  // What a PostgreSQL restart does to the pool's idle connection.
  exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
       "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  const auto after = auth->authenticate(second, kTestNow);
  BOOST_TEST(after.has_value(), (after ? "" : after.error().message));
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_throws) {
  store::PoolOptions pool;
  pool.connect_timeout_seconds = 1;
  Authenticator auth(test::keyDirectory("postgresql://sluice:sluice@127.0.0.1:1/none", pool), nullptr);
  BOOST_CHECK_THROW(auth.authenticate(generateApiKey().key, kTestNow), pqxx::broken_connection);
  // Missing and malformed keys never need the database.
  BOOST_TEST((auth.authenticate("", kTestNow).error().reason == AuthFailureReason::Missing));
}

BOOST_AUTO_TEST_SUITE_END()
