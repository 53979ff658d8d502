#include "server/identity/trusted_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <boost/test/unit_test.hpp>

namespace sluice::identity {
namespace {

catalog::TrustedProxies proxies(std::initializer_list<std::string_view> blocks) {
  catalog::TrustedProxies declared;
  declared.header = "x-forwarded-email";
  for (const auto block : blocks) declared.from.push_back(*catalog::parseCidr(block));
  return declared;
}

std::optional<catalog::IpAddress> v4(const char* text) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  ::inet_pton(AF_INET, text, &address.sin_addr);
  return ipOf(reinterpret_cast<const sockaddr*>(&address), sizeof address);
}

std::optional<catalog::IpAddress> v6(const char* text) {
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  ::inet_pton(AF_INET6, text, &address.sin6_addr);
  return ipOf(reinterpret_cast<const sockaddr*>(&address), sizeof address);
}

BOOST_AUTO_TEST_SUITE(trusted_proxy)

BOOST_AUTO_TEST_CASE(peer_addresses_compare_as_the_catalog_writes_blocks) {
  BOOST_TEST((v4("10.1.2.3") == catalog::parseIpAddress("10.1.2.3")));
  BOOST_TEST((v6("::ffff:10.1.2.3") == catalog::parseIpAddress("10.1.2.3")));  // a dual-stack listener's IPv4 peer
  BOOST_TEST((v6("fd00::1") == catalog::parseIpAddress("fd00::1")));
  sockaddr unix_address{};
  unix_address.sa_family = AF_UNIX;
  BOOST_TEST(!ipOf(&unix_address, sizeof unix_address).has_value());
  BOOST_TEST(!ipOf(nullptr, 0).has_value());
}

BOOST_AUTO_TEST_CASE(the_header_counts_only_from_a_trusted_address) {
  const std::optional<catalog::TrustedProxies> declared = proxies({"10.0.0.0/8", "127.0.0.1/32", "fd7a:115c:a1e0::/48"});
  const std::vector<std::string> sent = {"alice@corp.example"};
  for (const auto& peer : {v4("10.20.30.40"), v4("127.0.0.1"), v6("::ffff:10.0.0.9"), v6("fd7a:115c:a1e0::7")}) {
    const ProxyClaim claim = proxyClaim(declared, peer, sent);
    BOOST_TEST((claim.kind == ProxyClaimKind::Claimed));
    BOOST_TEST(claim.value == "alice@corp.example");
  }
  for (const auto& peer : {v4("127.0.0.2"), v4("11.0.0.1"), v4("192.168.1.10"), v6("::1"), v6("fd7a:115c:a1e1::7")}) {
    const ProxyClaim claim = proxyClaim(declared, peer, sent);
    BOOST_TEST((claim.kind == ProxyClaimKind::Ignored));
    BOOST_TEST(claim.value.empty());
  }
  // An unknown peer is never trusted; without trusted proxies the header means nothing.
  BOOST_TEST((proxyClaim(declared, std::nullopt, sent).kind == ProxyClaimKind::Ignored));
  BOOST_TEST((proxyClaim(std::nullopt, v4("127.0.0.1"), sent).kind == ProxyClaimKind::Ignored));
}

BOOST_AUTO_TEST_CASE(a_trusted_proxy_without_the_header_leaves_identity_to_keys) {
  const std::optional<catalog::TrustedProxies> declared = proxies({"127.0.0.1/32"});
  BOOST_TEST((proxyClaim(declared, v4("127.0.0.1"), {}).kind == ProxyClaimKind::Absent));
}

BOOST_AUTO_TEST_CASE(an_ambiguous_or_malformed_header_from_a_proxy_is_refused) {
  const std::optional<catalog::TrustedProxies> declared = proxies({"127.0.0.1/32"});
  const auto peer = v4("127.0.0.1");
  const ProxyClaim twice = proxyClaim(declared, peer, {"alice@corp.example", "bob@corp.example"});
  BOOST_TEST((twice.kind == ProxyClaimKind::Malformed));
  BOOST_TEST(twice.problem == "the identity proxy sent x-forwarded-email more than once");
  BOOST_TEST((proxyClaim(declared, peer, {"  "}).kind == ProxyClaimKind::Malformed));
  BOOST_TEST((proxyClaim(declared, peer, {std::string(kMaxProxyClaim + 1, 'a')}).kind == ProxyClaimKind::Malformed));
  BOOST_TEST((proxyClaim(declared, peer, {"ali\x01" "ce"}).kind == ProxyClaimKind::Malformed));
  const ProxyClaim padded = proxyClaim(declared, peer, {"  alice@corp.example\t"});
  BOOST_TEST((padded.kind == ProxyClaimKind::Claimed));
  BOOST_TEST(padded.value == "alice@corp.example");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::identity
