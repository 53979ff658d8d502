#pragma once
// Small, non-throwing accessors over parsed JSON shared by the anthropic codec's files, and the
// ApiError values the codec answers with. Every accessor checks the type before reading, so
// codec code never throws on a value of an unexpected shape.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::anthropic {

// The member `key` of `object`, or nullptr when `object` is not an object or lacks the key.
const Json* member(const Json& object, std::string_view key);

// The member as a string; `fallback` when absent or not a string.
std::string stringMember(const Json& object, std::string_view key, std::string_view fallback = "");

// A JSON number holding a whole value (4096 or 4096.0) as an integer; nullopt otherwise.
std::optional<int64_t> asInteger(const Json& value);

// The member as a whole number; 0 when absent, null or of another type.
int64_t integerMember(const Json& object, std::string_view key);

// Serializes without ever throwing: invalid UTF-8 is replaced, not reported.
std::string dumpJson(const Json& value);

}  // namespace sluice::wire::anthropic
