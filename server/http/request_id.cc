#include "server/http/request_id.h"

#include <chrono>
#include <cstdint>
#include <random>

namespace sluice::http {

std::string newRequestId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const uint64_t millis = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const uint64_t a = random();
  const uint64_t b = random();
  // 48-bit timestamp, version 7, 12 random bits, variant 10, 62 random bits.
  const uint64_t high = (millis << 16) | 0x7000 | (a & 0x0fff);
  const uint64_t low = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  // 8-4-4-4-12 lowercase hex digits, written directly (snprintf was a visible part of a request).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text(36, '-');
  size_t at = 0;
  auto put = [&](uint64_t value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) text[at++] = kHex[(value >> shift) & 0xf];
  };
  put(high >> 32, 8);
  ++at;
  put((high >> 16) & 0xffff, 4);
  ++at;
  put(high & 0xffff, 4);
  ++at;
  put(low >> 48, 4);
  ++at;
  put(low & 0xffffffffffffULL, 12);
  return text;
}

}  // namespace sluice::http
