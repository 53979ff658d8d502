#pragma once
// Parsing JSON that may come from anyone (a client's body, a provider's answer or stream event)
// without letting its nesting depth reach the code that walks a parsed value recursively
// (nlohmann's copy and dump recurse, and a fiber's stack is 256 KiB). Pure.

#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire {

// Deeper than this, a value is refused. Real requests and answers nest a few dozen levels at most
// (a tool's JSON schema); json_scan.h walks to the same depth.
constexpr int kMaxJsonDepth = 200;

// True when `text` opens more than `limit` arrays or objects inside one another (brackets inside
// strings do not count). Does not validate anything else.
bool nestsDeeperThan(std::string_view text, int limit = kMaxJsonDepth);

// What Json::parse(text, nullptr, false) gives, the same value or discarded where it fails, read
// by the gateway's own reader, which is several times quicker (json_parse.cc says what it keeps of
// nlohmann's behaviour). Also discarded past kMaxJsonDepth levels.
Json parseJsonText(std::string_view text);

// What value.dump(-1, ' ', false, Json::error_handler_t::replace) writes, written by the gateway's
// own writer: strings are copied a run at a time between the characters JSON escapes (nlohmann's
// checks and copies each byte). A string that is not well-formed UTF-8, and a floating-point
// number, are written by nlohmann itself, so the text is the same byte for byte.
std::string dumpJsonText(const Json& value);

// parseJsonText, and discarded (as malformed text is) when the text nests deeper than
// kMaxJsonDepth anywhere, even after a NUL that ends the value.
Json parseBounded(std::string_view text);

}  // namespace sluice::wire
