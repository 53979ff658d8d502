#pragma once
// Reads one top-level member of a JSON object without building the document: the value's text is
// found by walking the grammar (strings, numbers, literals, nesting) and skipping everything else.
// The passthrough lane uses it to read `usage` from an answer it forwards unchanged, which is
// several times cheaper than parsing the answer.
//
// Every text nlohmann::json accepts as an object is walked correctly, and the member found is the
// one nlohmann keeps (the last of duplicate keys). Some texts nlohmann refuses still walk (bytes
// that are not UTF-8 inside strings, numbers too large for a double): callers that need a verdict
// on validity parse the document instead.

#include <optional>
#include <string_view>

namespace sluice::wire {

struct MemberScan {
  bool walked = false;                   // the text is one JSON object (and nothing after it)
  std::optional<std::string_view> value; // the member's value text, when present
};

// Keys written with escapes are compared unescaped only when they need no decoding; a key with a
// backslash never matches, and the scan reports walked = false so the caller falls back to a parse.
MemberScan scanTopLevelMember(std::string_view json, std::string_view key);

}  // namespace sluice::wire
