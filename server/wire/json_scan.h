#pragma once
// Reads one top-level member of a JSON object without building the document: the value's text is
// found by walking the grammar (strings, numbers, literals, nesting) and skipping everything else.
// The passthrough lane uses it to read `usage` from an answer it forwards unchanged, which is
// several times cheaper than parsing the answer.
//
// Every text nlohmann::json accepts as an object is walked correctly, and the member found is the
// one nlohmann keeps (the last of duplicate keys). The walk checks what a parse checks (grammar,
// escapes, UTF-8), except that a number too large for a double (1e400) still walks, that text
// nested more than 200 levels deep does not walk, and that text with bytes after a NUL (which
// nlohmann ignores: "{}\0junk" parses) does not walk either (the caller parses those instead).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::wire {

struct MemberScan {
  bool walked = false;                   // the text is one JSON object (and nothing after it)
  std::optional<std::string_view> value; // the member's value text, when present
};

// A key written with escapes (a backslash) makes the scan report walked = false, so the caller
// falls back to a parse rather than miss a member spelled that way.
MemberScan scanTopLevelMember(std::string_view json, std::string_view key);

// The same for several keys in one walk: values[i] is the value text of keys[i], when present.
struct MembersScan {
  bool walked = false;
  std::vector<std::optional<std::string_view>> values;
  size_t members = 0;       // how many members the object has (duplicates counted)
  size_t closing_brace = 0; // offset of the object's closing brace in the text
  // The first of `keys` (by its index) that the object names more than once. Parsers disagree on
  // which duplicate they keep, so a gateway that reads one and forwards both must refuse these.
  std::optional<size_t> repeated;
};
MembersScan scanTopLevelMembers(std::string_view json, std::span<const std::string_view> keys);

// For text the scan could not walk (escaped keys among others): the index of the first of `keys`
// that the top-level object names more than once, keys compared after their escapes are decoded
// ("mod\u0065l" is "model"). Found by a SAX parse (no document built); nullopt when no key of
// `keys` repeats, and when the text is not a JSON object (its parse says so).
std::optional<size_t> repeatedTopLevelKey(std::string_view json, std::span<const std::string_view> keys);

// Rewrites top-level members of a JSON object's text instead of parsing and re-serialising it:
// each edit replaces the value of its member (the last, where a key repeats: the one parsers
// keep) or, when the member is absent, appends it. Everything else keeps its bytes.
// `value_json` must be one JSON value. nullopt when the text does not walk (see above).
struct MemberEdit {
  std::string_view key;
  std::string value_json;
};
std::optional<std::string> editTopLevelMembers(std::string_view json, std::span<const MemberEdit> edits);
// The same with a scan of `json` already made for `scanned_keys` (every edit's key among them), so
// the text is not walked twice.
std::optional<std::string> editTopLevelMembers(std::string_view json, const MembersScan& scan,
                                               std::span<const std::string_view> scanned_keys,
                                               std::span<const MemberEdit> edits);

}  // namespace sluice::wire
