#include "server/scim/body.h"

#include "server/scim/bounds.h"
#include "server/wire/json_parse.h"

namespace sluice::scim {

std::expected<nlohmann::json, ScimError> parseBody(std::string_view text) {
  if (text.size() > kMaxBodyBytes) return std::unexpected(ScimError{413, "", "the body exceeds 1 MiB"});
  if (wire::nestsDeeperThan(text, kMaxJsonDepth)) {
    return std::unexpected(invalidSyntax("the body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels"));
  }
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::unexpected(invalidSyntax("the body is not JSON"));
  return parsed;
}

}  // namespace sluice::scim
