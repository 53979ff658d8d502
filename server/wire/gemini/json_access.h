#pragma once
// Typed, non-throwing reads of provider JSON for the gemini codec. Each accessor checks the
// container and value types first and answers "absent" (nullptr, nullopt, "" or false) instead
// of throwing, so decoders stay total on any input.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::gemini {

// The member `key` of `object`, or nullptr when `object` is not an object or lacks it.
const Json* member(const Json& object, std::string_view key);
// As member(), but only when the member is an object / an array.
const Json* objectMember(const Json& object, std::string_view key);
const Json* arrayMember(const Json& object, std::string_view key);
// The member as a string, or "" when absent or not a string.
std::string stringMember(const Json& object, std::string_view key);
// The member as an integer (JSON integer, integral float, or decimal string as proto3 JSON
// writes int64), or nullopt.
std::optional<int64_t> intMember(const Json& object, std::string_view key);
// True only when the member is the JSON literal true.
bool trueMember(const Json& object, std::string_view key);

// Compact JSON text; invalid UTF-8 is replaced rather than thrown on.
std::string dumpCompact(const Json& value);

}  // namespace sluice::wire::gemini
