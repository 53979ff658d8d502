#include "server/wire/openai_chat/json_read.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_chat {

const Json* findField(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> readString(const Json& object, std::string_view key) {
  const Json* value = findField(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<int64_t> readInt(const Json& object, std::string_view key) {
  const Json* value = findField(object, key);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  return value->get<int64_t>();
}

std::optional<double> readNumber(const Json& object, std::string_view key) {
  const Json* value = findField(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::optional<bool> readBool(const Json& object, std::string_view key) {
  const Json* value = findField(object, key);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

Json parseJson(std::string_view text) { return parseBounded(text); }

std::string dumpJson(const Json& value) { return dumpJsonText(value); }

}  // namespace sluice::wire::openai_chat
