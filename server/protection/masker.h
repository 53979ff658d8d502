#pragma once
// Masking a request before it goes to a provider of a masked trust tier: every value the Detector
// finds is replaced by a placeholder ⟦KIND_N⟧ (placeholder.h), and the Mapping to restore the
// answer is returned. Pure: the request's IR in, the masked IR and the mapping out.
//
// Numbering is a deterministic function of the request's content: the texts are visited in a fixed
// order (system blocks, then tools, then messages, then the end-user id) and each kind counts its
// distinct values in order of first appearance. The next turn of a conversation resends the
// history as the client received it (answers restored), so masking it again mints the same
// placeholders for the same values, and a thinking block comes back as the text its provider
// signed. Numbers the client's own text already uses as ⟦KIND_N⟧ are skipped, so a placeholder
// never collides with something the client wrote.
//
// What is masked: system Text blocks; Text blocks; Thinking text (never the signature); every
// string value of a ToolUse input (recursively; keys untouched); ToolResult contents; a Tool's
// description and the "description"/"title" strings of its input schema; the string values of an
// Opaque block's JSON except file and media payloads ("data", "file_data", "image_url", ...,
// anything starting "data:"), ids and type tags; the end-user id. Not masked: Image blocks,
// RedactedThinking data, provider-hosted tools' raw JSON, model, stop sequences, tool names.

#include <array>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "server/protection/detectors.h"
#include "server/protection/exact_matcher.h"
#include "server/protection/mapping.h"
#include "server/wire/ir.h"

namespace sluice::protection {

struct MaskLimits {
  // Distinct values per request; past it, masking fails (the caller fails closed).
  size_t max_placeholders = 10'000;
  // Bytes of text scanned per request.
  size_t max_scanned_bytes = 64 * 1024 * 1024;
  // Values replaced per request (occurrences).
  size_t max_occurrences = 1'000'000;
};

// Why masking failed. `reason` names the limit or the field, never any of the request's text.
struct MaskFailure {
  std::string reason;
};

struct MaskResult {
  Mapping mapping;
  // Per kind, the occurrences replaced (not the distinct values): "the same e-mail three times"
  // counts 3. Kinds with none are absent.
  std::map<Kind, int> counts;
};

// Masks `request` in place. On success the request holds no value the detector finds (nor a later
// occurrence of one, wherever it stands); the result maps the placeholders back.
// On failure (a limit passed) the request is left partly masked and must not be sent anywhere:
// the caller masks a copy per attempt and skips the attempt (fails closed).
std::expected<MaskResult, MaskFailure> maskRequest(wire::Request& request, const Detector& detector,
                                                   const MaskLimits& limits = {});

// The masking of one request, text by text, for callers with texts outside the IR. Every text of
// the request must be passed to reserve() before the first mask(), in the order they will be
// masked, so client placeholders are known before numbering starts.
class Masker {
 public:
  Masker(const Detector& detector, const MaskLimits& limits) : detector_(detector), limits_(limits) {}

  // Notes the placeholders `text` already contains (the client's own ⟦KIND_N⟧ text).
  void reserve(std::string_view text);
  // Replaces the values in `text`. False (and `failure()` says why) when a limit is passed; `text`
  // is then unchanged.
  bool mask(std::string& text);

  const std::string& failure() const { return failure_; }
  // The mapping and counts so far; leaves the Masker empty.
  MaskResult finish();

 private:
  // The placeholder number for `value` of `kind`, minting the next free one; 0 past a limit.
  int numberFor(Kind kind, std::string_view value);

  const Detector& detector_;
  MaskLimits limits_;
  MaskResult result_;
  std::string failure_;
  size_t scanned_ = 0;
  size_t occurrences_ = 0;
  size_t minted_ = 0;
  std::array<int, kKindCount> next_{};                                    // last number minted
  std::array<std::unordered_map<std::string, int>, kKindCount> numbers_;  // value -> number
  std::unordered_set<uint64_t> reserved_;                                 // kind << 32 | number
  // Values minted so far (4 bytes or more), found again anywhere later in the request.
  ExactMatcher known_;
  std::vector<Span> spans_;
};

}  // namespace sluice::protection
