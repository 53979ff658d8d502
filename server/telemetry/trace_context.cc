#include "server/telemetry/trace_context.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <random>

namespace sluice::telemetry {

namespace {

bool lowerHex(std::string_view text) {
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool allZero(std::string_view text) { return text.find_first_not_of('0') == std::string_view::npos; }

// xoshiro256** (Blackman and Vigna), one per thread, seeded from OpenSSL's generator: ids must be
// unpredictable enough not to collide, as the spec asks, not secret, and a DRBG call per id cost
// more than a request's whole trace (bench/telemetry_bench.cc).
class IdSource {
 public:
  IdSource() {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(state_.data()), sizeof state_) != 1) {
      std::random_device device;
      for (auto& word : state_) word = (static_cast<uint64_t>(device()) << 32) ^ device();
    }
    if ((state_[0] | state_[1] | state_[2] | state_[3]) == 0) state_[0] = 1;
  }
  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> state_{};
};

std::string randomHex(size_t words) {
  thread_local IdSource source;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(words * 16, '0');
  for (size_t w = 0; w < words; ++w) {
    uint64_t word = source.next();
    for (int i = 15; i >= 0; --i) {
      out[w * 16 + static_cast<size_t>(i)] = kDigits[word & 0xf];
      word >>= 4;
    }
  }
  if (allZero(out)) out.back() = '1';  // all zero is invalid; astronomically rare
  return out;
}

}  // namespace

std::optional<SpanContext> parseTraceparent(std::string_view traceparent, std::string_view tracestate) {
  // version "-" trace-id "-" parent-id "-" trace-flags
  if (traceparent.size() < 55) return std::nullopt;
  const std::string_view version = traceparent.substr(0, 2);
  if (!lowerHex(version) || version == "ff") return std::nullopt;
  if (version == "00" ? traceparent.size() != 55 : (traceparent.size() > 55 && traceparent[55] != '-')) {
    return std::nullopt;
  }
  if (traceparent[2] != '-' || traceparent[35] != '-' || traceparent[52] != '-') return std::nullopt;
  const std::string_view trace_id = traceparent.substr(3, 32);
  const std::string_view span_id = traceparent.substr(36, 16);
  const std::string_view flags = traceparent.substr(53, 2);
  if (!lowerHex(trace_id) || !lowerHex(span_id) || !lowerHex(flags)) return std::nullopt;
  if (allZero(trace_id) || allZero(span_id)) return std::nullopt;
  SpanContext context;
  context.trace_id = std::string(trace_id);
  context.span_id = std::string(span_id);
  const int flag_value = (flags[1] >= 'a' ? flags[1] - 'a' + 10 : flags[1] - '0');
  context.sampled = (flag_value & 1) != 0;
  bool printable = tracestate.size() <= 512;
  for (const char c : tracestate) printable = printable && c >= 0x20 && c < 0x7f;
  if (printable) context.trace_state = std::string(tracestate);
  return context;
}

std::string formatTraceparent(std::string_view trace_id, std::string_view span_id, bool sampled) {
  std::string out = "00-";
  out.append(trace_id).append("-").append(span_id).append(sampled ? "-01" : "-00");
  return out;
}

std::string newTraceId() { return randomHex(2); }
std::string newSpanId() { return randomHex(1); }

}  // namespace sluice::telemetry
