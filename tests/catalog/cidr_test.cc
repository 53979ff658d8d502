#include "catalog/cidr.h"

#include <boost/test/unit_test.hpp>

#include <initializer_list>
#include <vector>

namespace sluice::catalog {
namespace {

IpAddress address(std::string_view text) {
  auto parsed = parseIpAddress(text);
  BOOST_REQUIRE_MESSAGE(parsed.has_value(), std::string(text));
  return *parsed;
}

Cidr block(std::string_view text) {
  std::string why;
  auto parsed = parseCidr(text, &why);
  BOOST_REQUIRE_MESSAGE(parsed.has_value(), std::string(text) + ": " + why);
  return *parsed;
}

BOOST_AUTO_TEST_SUITE(cidr)

BOOST_AUTO_TEST_CASE(ipv4_blocks_match_their_addresses_only) {
  const Cidr ten = block("10.0.0.0/8");
  BOOST_TEST(ten.contains(address("10.0.0.1")));
  BOOST_TEST(ten.contains(address("10.255.255.255")));
  BOOST_TEST(!ten.contains(address("11.0.0.0")));
  BOOST_TEST(!ten.contains(address("9.255.255.255")));
  const Cidr loopback = block("127.0.0.1/32");
  BOOST_TEST(loopback.contains(address("127.0.0.1")));
  BOOST_TEST(!loopback.contains(address("127.0.0.2")));
  const Cidr odd = block("192.168.4.0/22");
  BOOST_TEST(odd.contains(address("192.168.7.200")));
  BOOST_TEST(!odd.contains(address("192.168.8.0")));
}

BOOST_AUTO_TEST_CASE(a_bare_address_is_a_single_host) {
  BOOST_TEST(block("127.0.0.1").prefix_bits == 128);
  BOOST_TEST(block("::1").prefix_bits == 128);
  BOOST_TEST(block("127.0.0.1").contains(address("127.0.0.1")));
  BOOST_TEST(!block("127.0.0.1").contains(address("127.0.0.2")));
}

BOOST_AUTO_TEST_CASE(ipv4_blocks_match_ipv4_mapped_peers_of_a_dual_stack_listener) {
  BOOST_TEST(block("10.0.0.0/8").contains(address("::ffff:10.1.2.3")));
  BOOST_TEST(block("::ffff:10.0.0.0/104").contains(address("10.1.2.3")));
  BOOST_TEST(!block("10.0.0.0/8").contains(address("::a01:203")));  // IPv4-compatible is not mapped
}

BOOST_AUTO_TEST_CASE(ipv6_blocks_and_forms) {
  const Cidr ula = block("fd00::/8");
  BOOST_TEST(ula.contains(address("fd12:3456:789a::1")));
  BOOST_TEST(!ula.contains(address("fe80::1")));
  BOOST_TEST(!ula.contains(address("10.0.0.1")));
  const Cidr tailnet = block("fd7a:115c:a1e0::/48");
  BOOST_TEST(tailnet.contains(address("fd7a:115c:a1e0:ab12:4843:cd96:6258:b240")));
  BOOST_TEST(!tailnet.contains(address("fd7a:115c:a1e1::1")));
  BOOST_TEST(address("2001:db8:0:0:0:0:0:1") == address("2001:db8::1"));
  BOOST_TEST(address("::") == IpAddress{});
}

BOOST_AUTO_TEST_CASE(malformed_text_is_refused_with_a_reason) {
  for (std::string_view bad : {"", "10.0.0", "10.0.0.256", "010.0.0.1", "10.0.0.1.1", "a.b.c.d", "10.0.0.0/33",
                               "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1", "::1::2", "1:2:3:4:5:6:7:8:9", "fe80::1%eth0",
                               "[::1]", "12345::", "::/129", "localhost", "10.0.0.0/8 "}) {
    std::string why;
    BOOST_TEST(!parseCidr(bad, &why).has_value(), bad);
    BOOST_TEST(!why.empty(), bad);
  }
}

BOOST_AUTO_TEST_CASE(host_bits_past_the_prefix_are_refused) {
  std::string why;
  BOOST_TEST(!parseCidr("10.0.0.1/8", &why).has_value());
  BOOST_TEST(why == "'10.0.0.1/8' has bits set past its /8 prefix: write the block's first address");
  BOOST_TEST(!parseCidr("fd00::1/8", &why).has_value());
}

std::vector<Cidr> blocks(std::initializer_list<const char*> texts) {
  std::vector<Cidr> out;
  for (const char* text : texts) out.push_back(*parseCidr(text));
  return out;
}

// No one block is /0, yet together they trust everyone: the list is judged whole.
BOOST_AUTO_TEST_CASE(halves_that_together_trust_everyone_are_found) {
  BOOST_TEST(everyoneTrusted(blocks({"0.0.0.0/1", "128.0.0.0/1"})) == "every IPv4 address");
  BOOST_TEST(everyoneTrusted(blocks({"192.0.0.0/2", "10.0.0.0/8", "0.0.0.0/1", "128.0.0.0/2"})) ==
             "every IPv4 address");
  BOOST_TEST(everyoneTrusted(blocks({"0.0.0.0/0"})) == "every IPv4 address");
  BOOST_TEST(everyoneTrusted(blocks({"::ffff:0:0/96"})) == "every IPv4 address");
  BOOST_TEST(everyoneTrusted(blocks({"::/1", "8000::/1"})) == "every IPv4 address");  // ::ffff:0:0/96 is in ::/1
  BOOST_TEST(everyoneTrusted(blocks({"2000::/4", "3000::/4"})) == "every public IPv6 address");
  BOOST_TEST(everyoneTrusted(blocks({"8000::/1", "2000::/3"})) == "every public IPv6 address");
  // Wide, overlapping or adjacent, but someone is left out.
  BOOST_TEST(everyoneTrusted(blocks({"0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3"})).empty());
  BOOST_TEST(everyoneTrusted(blocks({"0.0.0.0/1", "0.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"})) ==
             "every IPv4 address");
  BOOST_TEST(everyoneTrusted(blocks({"128.0.0.0/1"})).empty());
  BOOST_TEST(everyoneTrusted(blocks({"10.0.0.0/8", "127.0.0.1", "fd7a:115c:a1e0::/48"})).empty());
  BOOST_TEST(everyoneTrusted(blocks({"2000::/4", "3000::/5"})).empty());
  BOOST_TEST(everyoneTrusted(blocks({"255.255.255.255", "0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4",
                                     "240.0.0.0/5", "248.0.0.0/6", "252.0.0.0/7", "254.0.0.0/8", "255.0.0.0/9",
                                     "255.128.0.0/9"})) == "every IPv4 address");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
