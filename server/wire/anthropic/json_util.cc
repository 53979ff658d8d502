#include "server/wire/anthropic/json_util.h"
#include "server/wire/json_parse.h"

#include <cmath>
#include <limits>

namespace sluice::wire::anthropic {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::string stringMember(const Json& object, std::string_view key, std::string_view fallback) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::string(fallback);
  return value->get_ref<const Json::string_t&>();
}

std::optional<int64_t> asInteger(const Json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<uint64_t>();
    if (unsigned_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(unsigned_value);
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    // NOTE: bounds are checked before the cast, which would be undefined out of range.
    if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > 9.0e18) return std::nullopt;
    return static_cast<int64_t>(number);
  }
  return std::nullopt;
}

int64_t integerMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr) return 0;
  return asInteger(*value).value_or(0);
}

std::string dumpJson(const Json& value) { return dumpJsonText(value); }

}  // namespace sluice::wire::anthropic
