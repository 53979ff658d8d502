#pragma once
// Type-checked reads of untrusted JSON for the openai_responses codec. Every accessor answers a
// default (or nullptr / nullopt) instead of throwing when the key is missing, the value is not an
// object, or the type is wrong, so decoders never throw on a provider's or client's bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_responses {

// The member `key` of `object`, or nullptr when `object` is not an object or has no such member.
// A member whose value is JSON null counts as absent.
const Json* member(const Json& object, std::string_view key);

// The member as a string; `fallback` when absent or not a string.
std::string stringMember(const Json& object, std::string_view key, std::string_view fallback = "");

// The member as a whole number (integers, or floats with no fraction); nullopt otherwise.
std::optional<int64_t> intMember(const Json& object, std::string_view key);

// Parses text that should hold JSON; a discarded value when it does not.
Json parseJson(std::string_view text);

// Serialises without throwing: invalid UTF-8 (a string another codec cut mid-character) is
// replaced by U+FFFD instead of raising.
std::string dumpJson(const Json& value);

// Deterministic ids for what the gateway shows a Responses client: "<prefix>_<request id>[_<index>]"
// with every character outside [A-Za-z0-9_-] replaced by '_'.
std::string mintId(std::string_view prefix, std::string_view request_id);
std::string mintId(std::string_view prefix, std::string_view request_id, size_t index);

}  // namespace sluice::wire::openai_responses
