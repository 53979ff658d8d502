#include "server/wire/gemini/tool_ids.h"

#include <array>

namespace sluice::wire::gemini {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;
constexpr std::string_view kMintedPrefix = "call_";
constexpr size_t kMintedHexDigits = 24;

uint64_t fnv1a(std::string_view bytes, uint64_t hash) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

void appendHex(std::string& out, uint64_t value, int digits) {
  static constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                                '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  for (int shift = 60; digits > 0; shift -= 4, --digits) out.push_back(kHex[(value >> shift) & 0xf]);
}

bool isLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::string mintToolCallId(std::string_view response_id, int64_t candidate_index, int64_t call_ordinal,
                           std::string_view name) {
  // Unit separators keep ("ab","c") and ("a","bc") apart.
  std::string key;
  key.reserve(response_id.size() + name.size() + 48);
  key.append(response_id);
  key.push_back('\x1f');
  key.append(std::to_string(candidate_index));
  key.push_back('\x1f');
  key.append(std::to_string(call_ordinal));
  key.push_back('\x1f');
  key.append(name);
  // 96 bits from two FNV-1a passes: the second is seeded with the first, so together they behave
  // as one wider digest of the same key.
  const uint64_t high = fnv1a(key, kFnvOffset);
  const uint64_t low = fnv1a(key, high ^ kFnvOffset);
  std::string id(kMintedPrefix);
  appendHex(id, high, 16);
  appendHex(id, low, 8);
  return id;
}

bool isMintedToolCallId(std::string_view id) {
  if (id.size() != kMintedPrefix.size() + kMintedHexDigits || !id.starts_with(kMintedPrefix)) return false;
  for (const char c : id.substr(kMintedPrefix.size())) {
    if (!isLowerHex(c)) return false;
  }
  return true;
}

bool sendsToolCallId(std::string_view id) {
  if (id.empty() || isMintedToolCallId(id)) return false;
  for (const std::string_view foreign : {"toolu_", "srvtoolu_", "call_", "fc_"}) {
    if (id.starts_with(foreign)) return false;
  }
  return true;
}

}  // namespace sluice::wire::gemini
