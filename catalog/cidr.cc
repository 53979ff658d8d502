#include "catalog/cidr.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace sluice::catalog {

namespace {

std::optional<std::array<uint8_t, 4>> parseQuad(std::string_view text) {
  std::array<uint8_t, 4> out{};
  size_t part = 0;
  size_t i = 0;
  while (part < 4) {
    if (i >= text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
    const size_t start = i;
    int value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value = value * 10 + (text[i] - '0');
      if (value > 255 || i - start >= 3) return std::nullopt;
      ++i;
    }
    if (i - start > 1 && text[start] == '0') return std::nullopt;
    out[part++] = static_cast<uint8_t>(value);
    if (part < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return out;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The 16-bit groups of one side of "::" (an IPv4 tail counts as two); false on a bad group.
bool parseGroups(std::string_view text, bool ipv4_tail_allowed, std::vector<uint16_t>& groups) {
  if (text.empty()) return true;
  size_t start = 0;
  for (;;) {
    const size_t colon = text.find(':', start);
    const std::string_view group = text.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    if (colon == std::string_view::npos && ipv4_tail_allowed && group.find('.') != std::string_view::npos) {
      const auto quad = parseQuad(group);
      if (!quad) return false;
      groups.push_back(static_cast<uint16_t>(((*quad)[0] << 8) | (*quad)[1]));
      groups.push_back(static_cast<uint16_t>(((*quad)[2] << 8) | (*quad)[3]));
      return true;
    }
    if (group.empty() || group.size() > 4) return false;
    uint16_t value = 0;
    for (const char c : group) {
      const int digit = hexValue(c);
      if (digit < 0) return false;
      value = static_cast<uint16_t>((value << 4) | digit);
    }
    groups.push_back(value);
    if (colon == std::string_view::npos) return true;
    start = colon + 1;
  }
}

std::optional<IpAddress> parseIpv6(std::string_view text) {
  std::vector<uint16_t> head;
  std::vector<uint16_t> tail;
  const size_t gap = text.find("::");
  if (gap != std::string_view::npos) {
    if (text.find("::", gap + 1) != std::string_view::npos) return std::nullopt;
    if (!parseGroups(text.substr(0, gap), false, head) || !parseGroups(text.substr(gap + 2), true, tail)) {
      return std::nullopt;
    }
    if (head.size() + tail.size() > 7) return std::nullopt;
  } else {
    if (!parseGroups(text, true, head) || head.size() != 8) return std::nullopt;
  }
  IpAddress out{};
  for (size_t i = 0; i < head.size(); ++i) {
    out[2 * i] = static_cast<uint8_t>(head[i] >> 8);
    out[2 * i + 1] = static_cast<uint8_t>(head[i]);
  }
  const size_t offset = 8 - tail.size();
  for (size_t i = 0; i < tail.size(); ++i) {
    out[2 * (offset + i)] = static_cast<uint8_t>(tail[i] >> 8);
    out[2 * (offset + i) + 1] = static_cast<uint8_t>(tail[i]);
  }
  return out;
}

}  // namespace

std::string_view lastForwardedFor(std::string_view value) {
  const size_t comma = value.rfind(',');
  if (comma != std::string_view::npos) value.remove_prefix(comma + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

std::optional<IpAddress> parseIpAddress(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  if (text.find(':') == std::string_view::npos) {
    const auto quad = parseQuad(text);
    if (!quad) return std::nullopt;
    IpAddress out{};
    out[10] = out[11] = 0xff;
    for (int i = 0; i < 4; ++i) out[12 + i] = (*quad)[i];
    return out;
  }
  return parseIpv6(text);
}

bool Cidr::contains(const IpAddress& candidate) const {
  int bits = prefix_bits;
  for (size_t i = 0; i < candidate.size() && bits > 0; ++i, bits -= 8) {
    const uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((candidate[i] & mask) != address[i]) return false;
  }
  return true;
}

std::optional<Cidr> parseCidr(std::string_view text, std::string* error) {
  const auto fail = [&](std::string why) -> std::optional<Cidr> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const size_t slash = text.find('/');
  const std::string_view host = text.substr(0, slash);
  const auto address = parseIpAddress(host);
  if (!address) {
    return fail("'" + std::string(text) + "' is not an address block: expected an IPv4 or IPv6 address, optionally "
                "followed by /bits (10.0.0.0/8, 127.0.0.1/32, fd00::/8)");
  }
  const bool v4 = host.find(':') == std::string_view::npos;
  const int max_bits = v4 ? 32 : 128;
  int bits = max_bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3 || (digits.size() > 1 && digits[0] == '0')) {
      return fail("'" + std::string(text) + "' has no valid prefix length after '/' (0 to " +
                  std::to_string(max_bits) + ")");
    }
    bits = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') {
        return fail("'" + std::string(text) + "' has no valid prefix length after '/' (0 to " +
                    std::to_string(max_bits) + ")");
      }
      bits = bits * 10 + (c - '0');
    }
    if (bits > max_bits) {
      return fail("'" + std::string(text) + "': the prefix length is at most " + std::to_string(max_bits));
    }
  }
  Cidr cidr;
  cidr.address = *address;
  cidr.prefix_bits = v4 ? 96 + bits : bits;
  cidr.text = std::string(text);
  // Host bits past the prefix must be clear.
  IpAddress masked = cidr.address;
  int keep = cidr.prefix_bits;
  for (auto& byte : masked) {
    const uint8_t mask = keep >= 8 ? 0xff : keep <= 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    byte &= mask;
    keep -= 8;
  }
  if (masked != cidr.address) {
    return fail("'" + std::string(text) + "' has bits set past its /" + std::to_string(bits) +
                " prefix: write the block's first address");
  }
  return cidr;
}

namespace {

using Wide = unsigned __int128;

Wide wide(const IpAddress& address) {
  Wide out = 0;
  for (const uint8_t byte : address) out = (out << 8) | byte;
  return out;
}

// The first and last address of a block.
std::pair<Wide, Wide> range(const Cidr& block) {
  const Wide first = wide(block.address);
  const Wide host_bits = block.prefix_bits == 0 ? ~Wide{0} : (Wide{1} << (128 - block.prefix_bits)) - 1;
  return {first, first | host_bits};
}

// Whether the union of `blocks` holds every address of `region`.
bool covers(std::span<const Cidr> blocks, const Cidr& region) {
  const auto [low, high] = range(region);
  std::vector<std::pair<Wide, Wide>> parts;
  for (const Cidr& block : blocks) {
    const auto [first, last] = range(block);
    if (last < low || first > high) continue;
    parts.emplace_back(std::max(first, low), std::min(last, high));
  }
  std::ranges::sort(parts);
  Wide next = low;  // the first address not yet covered
  for (const auto& [first, last] : parts) {
    if (first > next) return false;
    if (last >= high) return true;
    next = std::max(next, last + 1);
  }
  return false;
}

}  // namespace

std::string_view everyoneTrusted(std::span<const Cidr> blocks) {
  static const Cidr kIpv4 = *parseCidr("0.0.0.0/0");
  static const Cidr kPublicIpv6 = *parseCidr("2000::/3");
  if (covers(blocks, kIpv4)) return "every IPv4 address";
  if (covers(blocks, kPublicIpv6)) return "every public IPv6 address";
  return {};
}

}  // namespace sluice::catalog
