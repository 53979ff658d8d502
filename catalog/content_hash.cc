#include "catalog/content_hash.h"

#include <cstdint>

namespace sluice::catalog {

namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

void mix(uint64_t& hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kFnvPrime;
  }
}

}  // namespace

std::string contentHash(const std::vector<std::string_view>& parts) {
  uint64_t hash = kFnvOffset;
  for (std::string_view part : parts) {
    mix(hash, std::to_string(part.size()));
    mix(hash, ":");
    mix(hash, part);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(12, '0');
  for (int i = 11; i >= 0; --i) {
    out[i] = kHex[hash & 0xf];
    hash >>= 4;
  }
  return out;
}

}  // namespace sluice::catalog
