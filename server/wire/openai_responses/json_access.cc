#include "server/wire/openai_responses/json_access.h"
#include "server/wire/json_parse.h"

#include <cmath>

namespace sluice::wire::openai_responses {

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return nullptr;
  return &*found;
}

std::string stringMember(const Json& object, std::string_view key, std::string_view fallback) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::string(fallback);
  return value->get<std::string>();
}

std::optional<int64_t> intMember(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_integer()) return value->get<int64_t>();
  if (value->is_number_float()) {
    const double number = value->get<double>();
    if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) < 9.0e18) {
      return static_cast<int64_t>(number);
    }
  }
  return std::nullopt;
}

Json parseJson(std::string_view text) { return parseBounded(text); }

std::string dumpJson(const Json& value) { return dumpJsonText(value); }

namespace {

std::string cleanId(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    out.push_back(keep ? c : '_');
  }
  return out;
}

}  // namespace

std::string mintId(std::string_view prefix, std::string_view request_id) {
  return std::string(prefix) + "_" + cleanId(request_id);
}

std::string mintId(std::string_view prefix, std::string_view request_id, size_t index) {
  return mintId(prefix, request_id) + "_" + std::to_string(index);
}

}  // namespace sluice::wire::openai_responses
