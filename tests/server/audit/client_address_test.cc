#include "server/audit/client_address.h"

#include <boost/test/unit_test.hpp>

using sluice::audit::clientAddress;

BOOST_AUTO_TEST_SUITE(client_address)

BOOST_AUTO_TEST_CASE(the_row_names_the_connections_peer) {
  BOOST_TEST(clientAddress("203.0.113.7", false, {}) == "203.0.113.7");
  BOOST_TEST(clientAddress("2001:db8::1", false, {}) == "2001:db8::1");
  BOOST_TEST(clientAddress("", false, {}) == "");
}

BOOST_AUTO_TEST_CASE(x_forwarded_for_counts_only_from_a_trusted_proxy) {
  // Anyone can send the header: from an untrusted peer it names nothing.
  BOOST_TEST(clientAddress("203.0.113.7", false, {"198.51.100.1"}) == "203.0.113.7");
}

BOOST_AUTO_TEST_CASE(behind_a_trusted_proxy_the_address_it_appended_last_is_the_client) {
  BOOST_TEST(clientAddress("10.0.0.2", true, {"198.51.100.1"}) == "198.51.100.1");
  // What the client claimed comes first; the proxy's own entry is the last one.
  BOOST_TEST(clientAddress("10.0.0.2", true, {"1.2.3.4, 198.51.100.9"}) == "198.51.100.9");
  BOOST_TEST(clientAddress("10.0.0.2", true, {"1.2.3.4", " 2001:db8::5 "}) == "2001:db8::5");
  // No header, or an entry that is not an address: the proxy itself.
  BOOST_TEST(clientAddress("10.0.0.2", true, {}) == "10.0.0.2");
  BOOST_TEST(clientAddress("10.0.0.2", true, {"unknown"}) == "10.0.0.2");
  BOOST_TEST(clientAddress("10.0.0.2", true, {"198.51.100.1;route:x"}) == "10.0.0.2");
  BOOST_TEST(clientAddress("10.0.0.2", true, {std::string(5000, '1')}) == "10.0.0.2");
}

BOOST_AUTO_TEST_SUITE_END()
