#include "catalog/parsers.h"

#include <algorithm>

namespace sluice::catalog {

namespace {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool checkId(YamlReader& reader, const Located<std::string>& id, std::string_view kind,
             std::string_view extra, std::string_view allowed_text) {
  const std::string& text = id.value;
  bool valid = !text.empty() && std::ranges::all_of(text, [&](char c) {
    return isNameChar(c) || extra.find(c) != std::string_view::npos;
  });
  if (!valid) {
    reader.error(id.where, std::string(kind) + " id '" + text + "' is not valid; use " +
                               std::string(allowed_text));
  }
  return valid;
}

}  // namespace

std::optional<Entry> readTopLevel(YamlReader& reader, std::string_view text,
                                  std::string_view key) {
  std::optional<YAML::Node> root = reader.parse(text);
  if (!root) return std::nullopt;
  if (!root->IsDefined() || root->IsNull()) {
    reader.error(reader.fileLocation(),
                 "file is empty; expected the top-level key '" + std::string(key) + "'");
    return std::nullopt;
  }
  Location start{reader.path(), 1, 1};
  Fields top = reader.fields(*root, start, std::string(reader.path()), {key});
  if (!top.ok()) return std::nullopt;
  const Entry* body = top.find(key);
  if (body == nullptr) {
    reader.error(start, "missing the top-level key '" + std::string(key) + "'");
    return std::nullopt;
  }
  return *body;
}

bool checkName(YamlReader& reader, const Located<std::string>& id, std::string_view kind) {
  return checkId(reader, id, kind, "", "letters, digits, '.', '_' and '-'");
}

bool checkModelId(YamlReader& reader, const Located<std::string>& id, std::string_view kind) {
  return checkId(reader, id, kind, ":/@+", "letters, digits and . _ - : / @ +");
}

std::string ownerName(const YAML::Node& node, std::string_view kind, size_t index) {
  if (node.IsMap()) {
    const YAML::Node id = node["id"];
    if (id && id.IsScalar() && !id.Scalar().empty()) return std::string(kind) + " '" + id.Scalar() + "'";
  }
  return std::string(kind) + " #" + std::to_string(index + 1);
}

}  // namespace sluice::catalog
