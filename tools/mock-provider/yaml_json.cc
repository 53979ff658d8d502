#include "tools/mock-provider/yaml_json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

Json plainScalar(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.empty() || lower == "null" || lower == "~") return nullptr;
  if (lower == "true") return true;
  if (lower == "false") return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  std::int64_t integer = 0;
  if (auto [ptr, ec] = std::from_chars(begin, end, integer); ec == std::errc() && ptr == end) return integer;
  const bool looks_numeric = text.find_first_not_of("+-0123456789.eE") == std::string::npos &&
                             text.find_first_of("0123456789") != std::string::npos;
  if (looks_numeric) {
    double number = 0;
    if (auto [ptr, ec] = std::from_chars(begin, end, number); ec == std::errc() && ptr == end) return number;
  }
  return text;
}

}  // namespace

nlohmann::ordered_json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags a quoted scalar "!" and a plain one "?".
      if (node.Tag() == "!") return node.Scalar();
      return plainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(yamlToJson(item));
      return array;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& pair : node) object[pair.first.as<std::string>()] = yamlToJson(pair.second);
      return object;
    }
  }
  return nullptr;
}

}  // namespace sluice::mock
