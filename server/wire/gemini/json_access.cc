#include "server/wire/gemini/json_access.h"
#include "server/wire/json_parse.h"

#include <charconv>
#include <cmath>

namespace sluice::wire::gemini {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

const Json* objectMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_object() ? value : nullptr;
}

const Json* arrayMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_array() ? value : nullptr;
}

std::string stringMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

std::optional<int64_t> intMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_integer()) return value->get<int64_t>();
  if (value->is_number_float()) {
    const double number = value->get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 9.0e15) {
      return static_cast<int64_t>(number);
    }
    return std::nullopt;
  }
  if (value->is_string()) {
    const std::string& text = value->get_ref<const std::string&>();
    int64_t parsed = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return parsed;
  }
  return std::nullopt;
}

bool trueMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

std::string dumpCompact(const Json& value) { return dumpJsonText(value); }

}  // namespace sluice::wire::gemini
