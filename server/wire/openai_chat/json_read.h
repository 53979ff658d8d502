#pragma once
// Non-throwing reads of JSON whose shape is not trusted (client bodies, provider output).
// Every accessor checks the type before it reads: a missing key, a JSON null and a value of
// another type all read as "absent" (nullptr / nullopt). Callers that must tell a wrong type from
// an absent one use findField() and check the type themselves.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// The value under `key`, or nullptr when `object` is not an object, lacks the key, or holds null.
const Json* findField(const Json& object, std::string_view key);

std::optional<std::string> readString(const Json& object, std::string_view key);
// Integers only (a JSON number with a fraction is absent).
std::optional<int64_t> readInt(const Json& object, std::string_view key);
std::optional<double> readNumber(const Json& object, std::string_view key);
std::optional<bool> readBool(const Json& object, std::string_view key);

// Parses text without throwing: a discarded value (is_discarded()) on malformed JSON.
Json parseJson(std::string_view text);

// Compact JSON text; invalid UTF-8 in strings is replaced rather than thrown on.
std::string dumpJson(const Json& value);

}  // namespace sluice::wire::openai_chat
