#pragma once
// Type-checked, non-throwing reads of JSON whose shape is not trusted (a client's body, a
// provider's answer or stream event), shared by the four codecs. Pure.
//
// The one null rule: a member whose value is JSON null reads exactly as a missing member, so
// `"system": null` and no "system" at all decode the same. A value of another type than asked
// for also reads as absent (nullptr, nullopt, or the fallback); a caller that must tell a wrong
// type from an absent value takes member() and checks the type itself. `object` that is not a
// JSON object has no members. Pointers returned point into `object` and live as long as it does.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire {

// The member's value; nullptr when absent or null.
const Json* member(const Json& object, std::string_view key);
// As member(), but only an object / an array.
const Json* objectMember(const Json& object, std::string_view key);
const Json* arrayMember(const Json& object, std::string_view key);

// The member as a string: nullopt, or `fallback`, when absent, null or not a string.
std::optional<std::string> optionalString(const Json& object, std::string_view key);
std::string stringMember(const Json& object, std::string_view key, std::string_view fallback = "");

// A JSON number with a whole value (4096 or 4096.0) that fits int64_t; nullopt otherwise.
std::optional<int64_t> asInteger(const Json& value);
// The member as asInteger() reads it.
std::optional<int64_t> intMember(const Json& object, std::string_view key);
// The same, or a decimal string ("1024"), as proto3 JSON writes int64 (Gemini).
std::optional<int64_t> int64Member(const Json& object, std::string_view key);
// Any JSON number.
std::optional<double> numberMember(const Json& object, std::string_view key);

// The member as a boolean; trueMember: only the literal true.
std::optional<bool> boolMember(const Json& object, std::string_view key);
bool trueMember(const Json& object, std::string_view key);

// A client's request body as a JSON object: 400 invalid_request when it nests arrays and objects
// past kMaxJsonDepth (checked before any parse) or is JSON but not an object, 400 invalid_json
// when it is not JSON. Every endpoint's body refusal is this one.
std::expected<Json, ApiError> parseRequestObject(std::string_view body);

// A body that must be a JSON object, decoded by `decode(const Json&)` (which returns a
// std::expected<T, ApiError>): parseRequestObject()'s refusal, or what `decode` returns.
template <class Decode>
auto decodeObjectBody(std::string_view body, Decode decode) -> decltype(decode(std::declval<const Json&>())) {
  auto parsed = parseRequestObject(body);
  if (!parsed) return std::unexpected(parsed.error());
  return decode(*parsed);
}

}  // namespace sluice::wire
