#include "server/wire/json_access.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "server/wire/json_parse.h"

namespace sluice::wire {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return nullptr;
  return &*found;
}

const Json* objectMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_object() ? value : nullptr;
}

const Json* arrayMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value != nullptr && value->is_array() ? value : nullptr;
}

std::optional<std::string> optionalString(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get_ref<const Json::string_t&>();
}

std::string stringMember(const Json& object, std::string_view key, std::string_view fallback) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::string(fallback);
  return value->get_ref<const Json::string_t&>();
}

std::optional<int64_t> asInteger(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<uint64_t>();
    if (unsigned_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(unsigned_value);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    const double number = value.get<double>();
    // NOTE: bounds are checked before the cast, which would be undefined out of range.
    if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > 9.0e18) return std::nullopt;
    return static_cast<int64_t>(number);
  }
  return std::nullopt;
}

std::optional<int64_t> intMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr) return std::nullopt;
  return asInteger(*value);
}

std::optional<int64_t> int64Member(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) return asInteger(*value);
  const std::string& text = value->get_ref<const Json::string_t&>();
  int64_t parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return parsed;
}

std::optional<double> numberMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::optional<bool> boolMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

bool trueMember(const Json& object, std::string_view key) { return boolMember(object, key).value_or(false); }

std::expected<Json, ApiError> parseRequestObject(std::string_view body) {
  if (nestsDeeperThan(body)) {
    return std::unexpected(ApiError::invalidRequest("request body nests arrays and objects deeper than " +
                                                    std::to_string(kMaxJsonDepth) + " levels"));
  }
  Json parsed = parseJsonText(body);
  if (parsed.is_discarded()) return std::unexpected(ApiError::invalidJson());
  if (!parsed.is_object()) return std::unexpected(ApiError::invalidRequest("request body must be a JSON object"));
  return parsed;
}

}  // namespace sluice::wire
