// Fuzz target: decodeResponse and decodeError on any wire, then encodeResponse to the client
// wires; and the passthrough lane's usage scan, which must agree with the decode whenever both
// read the body, and must walk every object nlohmann accepts. Input: first byte picks the wire,
// the rest is the response body.
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size < 1) return 0;
  const auto wire = fuzz::wireFrom(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  // The same body as a provider error answer (status and Retry-After vary with the first byte).
  const int status = (data[0] & 0x10) ? 429 : 500 + (data[0] >> 5);
  (void)wire::decodeError(wire, status, body, (data[0] & 0x20) ? "7" : "", wire::SystemTime{});
  // The body as a Retry-After value too: any bytes read as a wait within the cap, or as nothing.
  if (const auto wait = wire::parseRetryAfter(body, wire::SystemTime{});
      wait && (wait->count() < 0 || *wait > wire::kMaxRetryAfter)) {
    std::abort();
  }
  auto response = wire::decodeResponse(wire, body);
  const auto scanned = wire::scanResponseUsage(wire, body);
  const wire::Json parsed = wire::Json::parse(body, nullptr, false);
  // Every object must walk (a key written with escapes, nesting past the walk's bound, and text
  // after a NUL byte, where nlohmann stops reading, are left to the decode).
  const auto opened = std::count(body.begin(), body.end(), '{') + std::count(body.begin(), body.end(), '[');
  if (wire != catalog::Wire::Gemini && wire != catalog::Wire::BedrockConverse && parsed.is_object() && !scanned && body.find('\\') == std::string_view::npos &&
      opened < 200 && body.find('\0') == std::string_view::npos) {
    std::abort();
  }
  if (response && scanned) {
    const wire::Usage& a = response->usage;
    const wire::Usage& b = scanned->usage;
    if (response->usage_reported != scanned->reported || a.input_tokens != b.input_tokens ||
        a.output_tokens != b.output_tokens || a.cache_read_tokens != b.cache_read_tokens ||
        a.cache_write_tokens != b.cache_write_tokens || a.reasoning_tokens != b.reasoning_tokens) {
      std::abort();
    }
  }
  if (!response) return 0;
  const auto context = fuzz::fuzzContext();
  for (auto target : fuzz::kClientWires) {
    auto encoded = wire::encodeResponse(target, *response, context);
    (void)encoded;
  }
  return 0;
}
