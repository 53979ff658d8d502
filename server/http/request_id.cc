#include "server/http/request_id.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
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
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xffff), static_cast<unsigned>(high & 0xffff),
                static_cast<unsigned>(low >> 48), static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return text;
}

}  // namespace sluice::http
