#include "server/telemetry/trace_context.h"

#include <openssl/rand.h>

#include <array>
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

std::string randomHex(size_t bytes) {
  std::array<unsigned char, 16> buffer{};
  if (RAND_bytes(buffer.data(), static_cast<int>(bytes)) != 1) {
    thread_local std::mt19937_64 fallback{std::random_device{}()};
    for (size_t i = 0; i < bytes; ++i) buffer[i] = static_cast<unsigned char>(fallback());
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (size_t i = 0; i < bytes; ++i) {
    out.push_back(kDigits[buffer[i] >> 4]);
    out.push_back(kDigits[buffer[i] & 0xf]);
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

std::string newTraceId() { return randomHex(16); }
std::string newSpanId() { return randomHex(8); }

}  // namespace sluice::telemetry
