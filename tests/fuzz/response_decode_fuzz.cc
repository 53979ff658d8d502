// Fuzz target: decodeResponse and decodeError on any wire, then encodeResponse to the client
// wires. Input: first byte picks the wire, the rest is the response body.
#include <string_view>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size < 1) return 0;
  const auto wire = fuzz::wireFrom(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  // The same body as a provider error answer (status and Retry-After vary with the first byte).
  const int status = (data[0] & 0x10) ? 429 : 500 + (data[0] >> 5);
  (void)wire::decodeError(wire, status, body, (data[0] & 0x20) ? "7" : "");
  auto response = wire::decodeResponse(wire, body);
  if (!response) return 0;
  const auto context = fuzz::fuzzContext();
  for (auto target : fuzz::kClientWires) {
    auto encoded = wire::encodeResponse(target, *response, context);
    (void)encoded;
  }
  return 0;
}
