// Fuzz target: what AWS's credential sources answer (server/cloud/aws_answers.h), read as STS XML
// (byte 0 even) or container / IMDS JSON (odd), with the status 200 or an error (byte 1). Keys
// accepted must be printable ASCII without spaces (they go into headers), and a refusal's reason
// stays short whatever the answer holds. The rest also goes through parseIso8601 and the
// container URL rule.
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "server/cloud/aws_answers.h"

namespace {

bool headerSafe(const std::string& value) {
  return std::ranges::all_of(value, [](unsigned char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::cloud;
  if (size < 2) return 0;
  const int status = data[1] % 4 == 0 ? 403 : 200;
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  const auto keys = data[0] % 2 == 0 ? readStsAnswer("AssumeRole", status, body) : readJsonKeys("imds", status, body);
  if (keys) {
    if (status != 200 || keys->keys.access_key_id.empty() || keys->keys.secret_access_key.empty()) std::abort();
    if (!headerSafe(keys->keys.access_key_id) || !headerSafe(keys->keys.secret_access_key) ||
        !headerSafe(keys->keys.session_token)) {
      std::abort();
    }
  } else if (keys.error().size() > 1024) {
    std::abort();
  }
  (void)parseIso8601(body.substr(0, 64));
  (void)containerUrlRefusal(body.substr(0, 256));
  return 0;
}
