#include "tools/mock-provider/tool_arguments.h"

#include <cctype>
#include <string>

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

std::string typeOf(const Json& schema) {
  if (!schema.is_object() || !schema.contains("type")) {
    if (schema.is_object() && schema.contains("properties")) return "object";
    return "string";
  }
  const Json& type = schema["type"];
  std::string name;
  if (type.is_string()) name = type.get<std::string>();
  else if (type.is_array())
    for (const auto& item : type)
      if (item.is_string() && item.get<std::string>() != "null") {
        name = item.get<std::string>();
        break;
      }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.empty() ? "string" : name;
}

Json valueFor(const Json& schema, const std::string& name, int depth) {
  if (schema.is_object()) {
    if (schema.contains("const")) return schema["const"];
    if (schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty()) return schema["enum"][0];
    for (const char* combinator : {"anyOf", "oneOf", "allOf"})
      if (schema.contains(combinator) && schema[combinator].is_array() && !schema[combinator].empty())
        return valueFor(schema[combinator][0], name, depth);
  }
  const std::string type = typeOf(schema);
  if (type == "integer") return 1;
  if (type == "number") return 1.5;
  if (type == "boolean") return true;
  if (type == "null") return nullptr;
  if (type == "array") {
    if (depth > 8) return Json::array();
    const Json items = schema.is_object() && schema.contains("items") ? schema["items"] : Json(nullptr);
    return Json::array({valueFor(items, name, depth + 1)});
  }
  if (type == "object") {
    Json object = Json::object();
    if (depth > 8 || !schema.is_object() || !schema.contains("properties") || !schema["properties"].is_object())
      return object;
    for (const auto& [key, property] : schema["properties"].items()) object[key] = valueFor(property, key, depth + 1);
    return object;
  }
  return "mock-" + (name.empty() ? std::string("value") : name);
}

}  // namespace

nlohmann::ordered_json argumentsForSchema(const nlohmann::ordered_json& schema) {
  if (!schema.is_object()) return Json::object();
  Json result = valueFor(schema, "", 0);
  return result.is_object() ? result : Json::object();
}

}  // namespace sluice::mock
