#pragma once
// Chat carries a tool call's arguments as a JSON-encoded string; the IR holds an object.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// The object the arguments text encodes. Empty (or blank) text and `null` are `{}`: that is how a
// call without arguments arrives. nullopt when the text is not JSON or not an object.
std::optional<Json> parseToolArguments(std::string_view text);

// Compact JSON text of a tool input; anything but an object is sent as "{}".
std::string dumpToolArguments(const Json& input);

}  // namespace sluice::wire::openai_chat
