#pragma once
// Address blocks (CIDR notation) for the catalog's trusted proxies: parsed from text and matched
// against a peer's address. Pure: no sockets, no resolver. IPv4 blocks and addresses are kept as
// IPv4-mapped IPv6 (::ffff:a.b.c.d), so a dual-stack listener's peers match IPv4 blocks too.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sluice::catalog {

// 16 bytes in network order; IPv4 as ::ffff:a.b.c.d.
using IpAddress = std::array<uint8_t, 16>;

// An IPv4 dotted quad ("10.0.0.1") or an IPv6 address ("fd00::1", "::ffff:10.0.0.1"), without
// brackets, zone or port. nullopt for anything else (leading zeros in a quad are refused: some
// parsers read them as octal).
std::optional<IpAddress> parseIpAddress(std::string_view text);

// The last element of one X-Forwarded-For value, blanks trimmed: the address the nearest proxy
// appended (whatever comes before it is what the client claimed). Not checked to be an address.
std::string_view lastForwardedFor(std::string_view value);

struct Cidr {
  IpAddress address{};  // the block's first address (host bits cleared)
  int prefix_bits = 0;  // of the 128; an IPv4 /n is 96 + n
  std::string text;     // as written, for messages

  bool contains(const IpAddress& candidate) const;
};

// "10.0.0.0/8", "fd00::/8", or one address ("127.0.0.1" = /32, "::1" = /128). Host bits set past
// the prefix ("10.0.0.1/8") are refused (a typo, or a misread block). Errors say what was expected.
std::optional<Cidr> parseCidr(std::string_view text, std::string* error = nullptr);

// What `blocks` trust together, when it is everyone: "every IPv4 address" when their union holds
// all of ::ffff:0:0/96, "every public IPv6 address" when it holds all of 2000::/3 (global
// unicast), "" otherwise. One block need not be wide: [0.0.0.0/1, 128.0.0.0/1] is everyone too.
std::string_view everyoneTrusted(std::span<const Cidr> blocks);

}  // namespace sluice::catalog
