// The connection caps' bookkeeping and the balancer's forwarded client, with strings.
#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/http/connection_limits.h"

namespace sluice::http {
namespace {

using Fields = std::vector<std::pair<std::string_view, std::string_view>>;

std::string key(std::string_view address) { return peerKey(catalog::parseIpAddress(address)); }

BOOST_AUTO_TEST_SUITE(connection_limits)

// A balancer's many connections count against the overall cap only, never its own address's.
BOOST_AUTO_TEST_CASE(a_trusted_balancers_connections_are_exempt_from_the_per_peer_cap) {
  ConnectionLimits limits(10, 2);
  std::vector<ConnectionLimits::Ticket> held;
  for (int i = 0; i < 8; ++i) {
    auto ticket = limits.admit(key("10.0.0.5"), ConnectionLimits::PerPeer::Exempt);
    BOOST_TEST_REQUIRE(ticket.has_value());
    held.push_back(std::move(*ticket));
  }
  BOOST_TEST(limits.open() == 8u);
  // Its own address still has its whole per-peer budget for direct connections.
  auto direct = limits.admit(key("10.0.0.5"));
  BOOST_TEST(direct.has_value());
  // The overall cap still holds for it.
  auto tenth = limits.admit(key("10.0.0.5"), ConnectionLimits::PerPeer::Exempt);
  BOOST_TEST(tenth.has_value());
  const auto eleventh = limits.admit(key("10.0.0.5"), ConnectionLimits::PerPeer::Exempt);
  BOOST_TEST_REQUIRE(!eleventh.has_value());
  BOOST_TEST((eleventh.error() == ConnectionLimits::Refusal::MaxConnections));
}

// Each forwarded request counts against its client's cap, shared with the client's direct
// connections, and gives its place back when it ends; the total is the balancer's to count.
BOOST_AUTO_TEST_CASE(forwarded_requests_count_against_their_clients_cap) {
  ConnectionLimits limits(100, 2);
  auto direct = limits.admit(key("203.0.113.7"));
  BOOST_TEST_REQUIRE(direct.has_value());
  std::optional<ConnectionLimits::Ticket> first;
  {
    auto forwarded = limits.admitForwarded(key("203.0.113.7"));
    BOOST_TEST_REQUIRE(forwarded.has_value());
    first.emplace(std::move(*forwarded));
  }
  BOOST_TEST(limits.open() == 1u);
  const auto third = limits.admitForwarded(key("203.0.113.7"));
  BOOST_TEST_REQUIRE(!third.has_value());
  BOOST_TEST((third.error() == ConnectionLimits::Refusal::MaxPerPeer));
  BOOST_TEST(limits.admitForwarded(key("203.0.113.8")).has_value());  // another client
  first.reset();
  BOOST_TEST(limits.admitForwarded(key("203.0.113.7")).has_value());
  BOOST_TEST(limits.open() == 1u);
}

BOOST_AUTO_TEST_CASE(an_ipv4_address_and_its_mapped_form_are_one_peer) {
  BOOST_TEST(key("192.0.2.1") == key("::ffff:192.0.2.1"));
  BOOST_TEST(key("192.0.2.1") != key("192.0.2.2"));
  BOOST_TEST(peerKey(std::nullopt) == "local");
}

BOOST_AUTO_TEST_CASE(the_client_is_the_last_element_the_balancer_appended) {
  const auto client = [](const Fields& fields) {
    const auto address = forwardedClient(fields);
    return address ? peerKey(address) : std::string("none");
  };
  BOOST_TEST(client({{"X-Forwarded-For", "203.0.113.7"}}) == key("203.0.113.7"));
  // What the client wrote comes first; the balancer appends what it saw.
  BOOST_TEST(client({{"x-forwarded-for", "1.1.1.1, 2.2.2.2 , 203.0.113.7"}}) == key("203.0.113.7"));
  BOOST_TEST(client({{"X-Forwarded-For", "1.1.1.1"}, {"Host", "a"}, {"X-FORWARDED-FOR", "203.0.113.7"}}) ==
             key("203.0.113.7"));
  BOOST_TEST(client({{"X-Forwarded-For", "203.0.113.7:51234"}}) == key("203.0.113.7"));
  BOOST_TEST(client({{"X-Forwarded-For", "2001:db8::7"}}) == key("2001:db8::7"));
  BOOST_TEST(client({{"X-Forwarded-For", "[2001:db8::7]:443"}}) == key("2001:db8::7"));
  BOOST_TEST(client({{"X-Forwarded-For", "203.0.113.7, unknown"}}) == "none");
  BOOST_TEST(client({{"X-Forwarded-For", "203.0.113.7,"}}) == "none");
  BOOST_TEST(client({{"X-Forwarded-For", "[2001:db8::7"}}) == "none");
  BOOST_TEST(client({{"X-Real-IP", "203.0.113.7"}}) == "none");
  BOOST_TEST(client({}) == "none");
}

BOOST_AUTO_TEST_CASE(trusted_balancers_are_address_blocks_that_do_not_trust_everyone) {
  const auto parsed = parseBalancers(" 10.0.0.0/8, 127.0.0.1 ,fd00::/8,");
  BOOST_TEST_REQUIRE(parsed.has_value());
  BOOST_TEST(parsed->size() == 3u);
  BOOST_TEST(parseBalancers("").value().empty());
  BOOST_TEST(parseBalancers("10.0.0.0/8, ingress").error().starts_with("--trusted-balancers: 'ingress' is not"));
  BOOST_TEST(parseBalancers("0.0.0.0/1,128.0.0.0/1").error().starts_with(
      "--trusted-balancers trusts every IPv4 address"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
