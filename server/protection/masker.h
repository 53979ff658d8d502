#pragma once
// Masking a request before it goes to a provider of a masked trust tier: every value the Detector
// finds is replaced by a placeholder ⟦KIND_N⟧ (placeholder.h), and the Mapping to restore the
// answer is returned. Pure: the request's IR in, the masked IR and the mapping out.
//
// Numbering is a deterministic function of the request's content: the texts are visited in a fixed
// order (system blocks, tools, the response format, messages, the end-user id) and each kind counts its
// distinct values in order of first appearance. The next turn of a conversation resends the
// history as the client received it (answers restored), so masking it again mints the same
// placeholders for the same values, and a thinking block comes back as the text its provider
// signed. Numbers the client's own text already uses as ⟦KIND_N⟧ are skipped, so a placeholder
// never collides with something the client wrote.
//
// What is masked (request_texts.h): system Text blocks; Text blocks; Thinking text (never the
// signature); every string value of a ToolUse input (recursively; keys untouched); ToolResult
// contents; a Tool's description and the prose and values ("description", "title", "enum",
// "const", "default", "examples") of its input schema and of the response format's schema; every
// string of a tool kept as the client wrote it (hosted, custom, MCP) except its type and name, with
// its `headers` values and `authorization` masked whole as credentials; the string values of an
// Opaque block's JSON except file and media payloads ("data", "file_data", "image_url", ..., and
// real data URLs under media keys), ids and type tags; the end-user id. Not masked: Image blocks,
// RedactedThinking data, model, stop sequences, tool names.
//
// Masking reads the request twice: once to find the values (every text through the Detector), once
// to replace them, with every value found anywhere searched for again in every text (one automaton
// built from them: exact_matcher.h). The work is bounded per request by MaskLimits: bytes scanned,
// time on the caller's clock, distinct values and their bytes, occurrences.

#include <array>
#include <chrono>
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
#include "server/protection/scan_budget.h"
#include "server/wire/ir.h"

namespace sluice::protection {

struct MaskLimits {
  // Distinct values per request; past it, masking fails (the caller fails closed).
  size_t max_placeholders = 10'000;
  // Bytes of text the detectors read per request (each text once; the search for the values found
  // reads it again, bounded by the time below).
  size_t max_scanned_bytes = 64 * 1024 * 1024;
  // Values replaced per request (occurrences).
  size_t max_occurrences = 1'000'000;
  // Bytes of the distinct values found, searched for again in every text: the automaton built
  // from them takes about 40 bytes of memory per byte.
  size_t max_known_bytes = 512 * 1024;
  // Time spent scanning per request, read on `clock` (the gateway passes the masking thread's CPU
  // clock). Without a clock there is no time limit: the pure core reads none.
  std::chrono::milliseconds max_scan_time{2000};
  ScanBudget::Clock clock;
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

// Masks `request` in place. On success the request holds no value the detector finds (nor another
// occurrence of one, wherever it stands); the result maps the placeholders back.
// On failure (a limit passed) the request is left partly masked and must not be sent anywhere:
// the caller masks a copy per attempt and skips the attempt (fails closed).
std::expected<MaskResult, MaskFailure> maskRequest(wire::Request& request, const Detector& detector,
                                                   const MaskLimits& limits = {});

// The masking of one request, text by text, for callers with texts outside the IR. Two passes
// over the same texts in the same order: reserve() every text (the client's own placeholders are
// noted and the values found), then mask() every text. A pass-2 text must be the pass-1 text
// unchanged.
class Masker {
 public:
  Masker(const Detector& detector, const MaskLimits& limits);

  // Pass 1: notes the placeholders `text` already contains (the client's own ⟦KIND_N⟧ text) and
  // finds its values. False (failure() says why) when a limit is passed.
  bool reserve(std::string_view text);
  // Pass 1 for a credential (an MCP tool's header value, an `authorization`): the whole value, after
  // an authentication scheme word ("Bearer "), is one value of credentialKind(); when neither kind
  // is enabled it is read as any other text.
  bool reserveCredential(std::string_view text);
  // Pass 2: replaces the values in `text`. False (and failure() says why) when a limit is passed;
  // `text` is then unchanged.
  bool mask(std::string& text);

  const std::string& failure() const { return failure_; }
  // The mapping and counts so far; leaves the Masker empty.
  MaskResult finish();

 private:
  // Pass 1: one text's values, kept for pass 2.
  struct Found {
    size_t bytes = 0;  // the text's size (pass 2 must see the same text)
    std::vector<Span> spans;
  };

  bool fail(std::string reason);
  void notePlaceholders(std::string_view text);
  // Notes the distinct values of `spans` in order of first appearance; false past a limit.
  bool noteValues(std::string_view text, const std::vector<Span>& spans);
  // Numbers every value pass 1 found and builds the automaton that finds them again; once.
  bool numberAll();

  const Detector& detector_;
  MaskLimits limits_;
  ScanBudget budget_;
  MaskResult result_;
  std::string failure_;
  size_t occurrences_ = 0;
  size_t known_bytes_ = 0;
  bool numbered_ = false;
  size_t next_text_ = 0;                                                  // pass 2's next text
  std::vector<Found> found_;                                              // per pass-1 text
  std::vector<std::pair<Kind, std::string>> values_;                      // in order of first appearance
  std::array<std::unordered_map<std::string, int>, kKindCount> numbers_;  // value -> number (0: not yet)
  std::unordered_set<uint64_t> reserved_;                                 // kind << 32 | number
  ExactMatcher known_;                                                    // values of 4 bytes or more
  std::vector<Span> spans_;
};

}  // namespace sluice::protection
