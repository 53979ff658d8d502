#include "server/scim/body.h"

#include "server/scim/bounds.h"

namespace sluice::scim {

namespace {

bool nestsDeeper(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::expected<nlohmann::json, ScimError> parseBody(std::string_view text) {
  if (text.size() > kMaxBodyBytes) return std::unexpected(ScimError{413, "", "the body exceeds 1 MiB"});
  if (nestsDeeper(text, kMaxJsonDepth)) {
    return std::unexpected(invalidSyntax("the body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels"));
  }
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::unexpected(invalidSyntax("the body is not JSON"));
  return parsed;
}

}  // namespace sluice::scim
