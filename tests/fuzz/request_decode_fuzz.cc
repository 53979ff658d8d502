// Fuzz target: decodeRequest on any wire, then encodeRequest of the result to every wire; and the
// passthrough lane's member edit (json_scan.h), which must give what a parse, an assignment and a
// re-serialisation give, on every object a parse accepts. Input: first byte picks the wire, the
// rest is the request body.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "server/wire/json_scan.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void checkMemberEdit(std::string_view body) {
  using Json = nlohmann::json;
  const Json parsed = Json::parse(body, nullptr, false);
  const bool escaped_keys = body.find('\\') != std::string_view::npos;
  const auto opened = std::count(body.begin(), body.end(), '{') + std::count(body.begin(), body.end(), '[');
  const std::vector<sluice::wire::MemberEdit> edits = {{"model", R"("fuzz-upstream")"}, {"max_tokens", "7"}};
  const auto edited = sluice::wire::editTopLevelMembers(body, edits);
  if (!parsed.is_object()) {
    if (parsed.is_discarded() && edited) {
      // Only a number too large for a double walks where a parse refuses.
      if (body.find_first_of("eE") == std::string_view::npos && body.size() < 300) std::abort();
    }
    return;
  }
  if (!edited) {
    // Every other object must walk. nlohmann stops reading at a NUL byte ("{}\0junk" parses);
    // the walk refuses such text, and the request path then parses it instead.
    if (!escaped_keys && opened < 200 && body.find('\0') == std::string_view::npos) std::abort();
    return;
  }
  Json expected = parsed;
  expected["model"] = "fuzz-upstream";
  expected["max_tokens"] = 7;
  const Json actual = Json::parse(*edited, nullptr, false);
  if (actual != expected) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size < 1) return 0;
  const auto wire = fuzz::wireFrom(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  checkMemberEdit(body);
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
