#include "server/scim/patch.h"

#include <cctype>

#include "server/scim/bounds.h"

namespace sluice::scim {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

ScimError invalidPath(std::string detail) { return {400, "invalidPath", std::move(detail)}; }

// "name.givenname" → {"name", "givenname"}; extension URNs ("urn:…:enterprise:2.0:user:department")
// stay whole: their dots are the schema's version.
void splitSub(PatchPath& path) {
  if (path.attribute.starts_with("urn:")) return;
  if (const size_t dot = path.attribute.find('.'); dot != std::string::npos) {
    path.sub_attribute = path.attribute.substr(dot + 1);
    path.attribute.resize(dot);
  }
}

}  // namespace

std::optional<bool> booleanOf(const nlohmann::json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_string()) {
    const std::string text = lower(value.get<std::string>());
    if (text == "true") return true;
    if (text == "false") return false;
  }
  return std::nullopt;
}

std::expected<PatchPath, ScimError> parsePath(std::string_view text) {
  if (text.empty() || text.size() > kMaxFilterBytes) return std::unexpected(invalidPath("the path is empty or too long"));
  PatchPath path;
  const size_t open = text.find('[');
  if (open == std::string_view::npos) {
    path.attribute = canonicalAttribute(text);
    if (path.attribute.empty()) return std::unexpected(invalidPath("no attribute in path '" + std::string(text) + "'"));
    splitSub(path);
    return path;
  }
  const size_t close = text.rfind(']');
  if (close == std::string_view::npos || close < open) {
    return std::unexpected(invalidPath("the path's '[' is not closed"));
  }
  path.attribute = canonicalAttribute(text.substr(0, open));
  if (path.attribute.empty()) return std::unexpected(invalidPath("no attribute before '['"));
  auto filter = parseFilter(text.substr(open + 1, close - open - 1));
  if (!filter) return std::unexpected(invalidPath("the path's filter: " + filter.error().detail));
  path.filter = std::move(*filter);
  const std::string_view rest = text.substr(close + 1);
  if (!rest.empty()) {
    if (rest.front() != '.' || rest.size() < 2) return std::unexpected(invalidPath("unexpected text after ']'"));
    path.sub_attribute = lower(rest.substr(1));
  }
  return path;
}

std::expected<std::vector<PatchOperation>, ScimError> parsePatch(const nlohmann::json& body) {
  if (!body.is_object()) return std::unexpected(invalidSyntax("a PATCH body is a JSON object"));
  // Entra ID and Okta both send "Operations"; the name is matched in any case.
  const nlohmann::json* operations = nullptr;
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (lower(it.key()) == "operations") operations = &it.value();
  }
  if (!operations || !operations->is_array()) {
    return std::unexpected(invalidSyntax("a PATCH body holds an Operations array (" + std::string(kPatchOpSchema) + ")"));
  }
  if (operations->size() > kMaxOperations) {
    return std::unexpected(ScimError{400, "tooMany", "at most 1000 operations in one PATCH"});
  }
  std::vector<PatchOperation> out;
  for (const auto& item : *operations) {
    if (!item.is_object()) return std::unexpected(invalidSyntax("each operation is an object"));
    std::string op, path_text;
    nlohmann::json value;
    bool has_path = false;
    for (auto it = item.begin(); it != item.end(); ++it) {
      const std::string key = lower(it.key());
      if (key == "op" && it.value().is_string()) op = lower(it.value().get<std::string>());
      if (key == "path" && it.value().is_string()) {
        path_text = it.value().get<std::string>();
        has_path = !path_text.empty();
      }
      if (key == "value") value = it.value();
    }
    PatchKind kind;
    if (op == "add") kind = PatchKind::Add;
    else if (op == "remove") kind = PatchKind::Remove;
    else if (op == "replace") kind = PatchKind::Replace;
    else return std::unexpected(invalidSyntax("op '" + op + "' is not add, remove or replace"));
    if (has_path) {
      auto path = parsePath(path_text);
      if (!path) return std::unexpected(path.error());
      out.push_back({kind, std::move(*path), std::move(value)});
      continue;
    }
    if (kind == PatchKind::Remove) return std::unexpected(ScimError{400, "noTarget", "a remove operation needs a path"});
    if (!value.is_object()) {
      return std::unexpected(invalidSyntax("an operation without a path needs an object value"));
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      auto path = parsePath(it.key());
      if (!path) return std::unexpected(path.error());
      out.push_back({kind, std::move(*path), it.value()});
    }
    if (out.size() > kMaxOperations) {
      return std::unexpected(ScimError{400, "tooMany", "at most 1000 operations in one PATCH"});
    }
  }
  return out;
}

}  // namespace sluice::scim
