// Fuzz target: decodeRequest on any wire, then encodeRequest of the result to every wire.
// Input: first byte picks the wire, the rest is the request body.
#include <string_view>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size < 1) return 0;
  const auto wire = fuzz::wireFrom(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto request = wire::decodeRequest(wire, body);
  if (!request) return 0;
  wire::EncodeOptions options;
  options.upstream_model = "fuzz-upstream";
  options.max_output = 8192;
  for (auto target : fuzz::kAllWires) {
    auto encoded = wire::encodeRequest(target, *request, options);
    (void)encoded;
  }
  return 0;
}
