// The console's shared sessions (admin/session_store.h) over in-memory sessions:
// tests/fakes/fake_console_sessions.h. Only the cookie id's hash reaches the store.
#include "server/admin/session_store.h"

#include <boost/test/unit_test.hpp>

#include "tests/fakes/fake_console_sessions.h"

using namespace sluice;
using namespace sluice::admin;
using namespace std::chrono;

namespace {

const system_clock::time_point kNow{seconds(1'795'988'600)};

Session session(const std::string& id) {
  Session s;
  s.id = id;
  s.csrf = std::string(64, 'c');
  s.user = "alice";
  s.api_key_id = "Ab3dE6gH";
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(session_store)

BOOST_AUTO_TEST_CASE(a_stored_session_is_found_by_its_cookie_id_on_another_replica) {
  fakes::FakeConsoleSessions shared;
  shared.setNow(kNow);
  const std::string id(64, 'a');
  storeSession(shared, session(id), hours(8));
  const auto found = loadSession(shared, id, minutes(30));
  BOOST_REQUIRE(found.has_value());
  BOOST_TEST(found->id == id);
  BOOST_TEST(found->csrf == std::string(64, 'c'));
  BOOST_TEST(found->user == "alice");
  BOOST_TEST(found->api_key_id == "Ab3dE6gH");
  BOOST_TEST((found->created_at == kNow));
  BOOST_TEST(!loadSession(shared, std::string(64, 'b'), minutes(30)).has_value());
}

BOOST_AUTO_TEST_CASE(the_store_keeps_the_hash_of_the_id_never_the_id) {
  BOOST_TEST(sessionIdHash("abc") == "\\xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

BOOST_AUTO_TEST_CASE(an_idle_or_expired_session_is_gone_and_touching_keeps_it_alive) {
  fakes::FakeConsoleSessions shared;
  shared.setNow(kNow);
  const std::string id(64, 'a');
  storeSession(shared, session(id), hours(1));
  shared.setNow(kNow + minutes(20));
  BOOST_TEST(touchSession(shared, id, minutes(30)));
  shared.setNow(kNow + minutes(45));
  BOOST_TEST(loadSession(shared, id, minutes(30)).has_value());  // used 25 minutes ago
  shared.setNow(kNow + minutes(55));
  BOOST_TEST(!touchSession(shared, id, minutes(30)));  // idle for 35 minutes
  const std::string other(64, 'd');
  storeSession(shared, session(other), hours(1));
  shared.setNow(kNow + minutes(55) + hours(1));
  BOOST_TEST(!loadSession(shared, other, hours(2)).has_value());  // past its lifetime
}

BOOST_AUTO_TEST_CASE(signing_out_deletes_the_session_everywhere) {
  fakes::FakeConsoleSessions shared;
  const std::string id(64, 'a');
  storeSession(shared, session(id), hours(8));
  deleteSession(shared, id);
  BOOST_TEST(!loadSession(shared, id, minutes(30)).has_value());
  BOOST_TEST(shared.sessions() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
