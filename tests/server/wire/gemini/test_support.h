#pragma once
// Helpers for the gemini codec tests: recorded fixtures (vercel-ai JSONL chunks, pydantic-ai VCR
// cassettes), SSE replay, feeding a decoder in random pieces, and folding events into a Response
// while checking the event protocol.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/wire/codec.h"
#include "server/wire/ir.h"

namespace sluice::wire::gemini::test {

// $SLUICE_FIXTURES_DIR/<relative> (default: the source tree's tests/fixtures).
std::string readFixture(const std::string& relative);

// The non-empty lines of a vercel-ai *.chunks.txt file.
std::vector<std::string> chunkLines(const std::string& relative);

// The lines replayed as Gemini SSE: "data: <line>\r\n\r\n" each.
std::string sseBody(const std::vector<std::string>& lines);

struct Interaction {
  Json request;            // parsed_body or the JSON of body, null when absent
  int status = 0;
  std::string response_body;  // raw body string, or the JSON text of parsed_body
  bool response_is_raw = false;
};

// The interactions of a pydantic-ai cassette.
std::vector<Interaction> loadCassette(const std::string& relative);

// Runs a fresh Gemini stream decoder over `body`, whole or cut into pieces of 1..max_piece bytes
// chosen by a generator seeded with `seed`; returns every event including finish()'s.
std::vector<StreamEvent> decodeWhole(const std::string& body);
std::vector<StreamEvent> decodeInPieces(const std::string& body, uint32_t seed, size_t max_piece);

// A stable text form of an event list, to compare two decodings.
std::string describe(const std::vector<StreamEvent>& events);

// Folds events into a Response, checking the protocol as it goes (MessageStart first, blocks
// started before their deltas and stopped once, indices increasing, MessageDelta then
// MessageStop last). Fails the current test on a violation. `error` receives an Error event.
struct Folded {
  Response response;
  std::optional<ApiError> error;
  int tool_json_deltas = 0;
  bool start_usage_reported = false;
  Usage start_usage;
};
Folded fold(const std::vector<StreamEvent>& events);

// Parses JSON text into an unordered nlohmann::json, for comparisons that ignore key order.
nlohmann::json plain(const std::string& text);
nlohmann::json plain(const Json& value);

}  // namespace sluice::wire::gemini::test
