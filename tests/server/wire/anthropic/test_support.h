#pragma once
// Helpers for the anthropic codec tests: recorded fixtures, YAML cassettes as JSON, streams fed
// whole or in random pieces, and IR values as JSON so whole values can be compared.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/wire/codec.h"
#include "server/wire/ir.h"

namespace sluice::wire::anthropic::test {

// The text of tests/fixtures/<relative> (SLUICE_FIXTURES_DIR, else the source tree's copy).
std::string readFixture(const std::string& relative);

// A VCR cassette (YAML) as JSON: plain scalars become numbers, booleans and null as YAML reads
// them; quoted and block scalars stay strings.
Json cassette(const std::string& relative);

// A vercel-ai `*.chunks.txt` (one data payload per line) replayed as the SSE bytes Anthropic sent:
// "event: <type>\ndata: <line>\n\n" per line.
std::string sseFromChunks(const std::string& relative);

// Every event the decoder returns for `bytes`, fed in one piece or in pieces of 1..max_piece
// bytes drawn from a seeded generator, then finish().
std::vector<StreamEvent> decodeWhole(std::string_view bytes);
std::vector<StreamEvent> decodeInPieces(std::string_view bytes, uint32_t seed, size_t max_piece = 17);

// What a client would rebuild from a stream of events.
struct Rebuilt {
  struct Block {
    ContentBlock::Type type = ContentBlock::Type::Text;
    ContentBlock start;
    std::string text;       // Text and Thinking deltas
    std::string json;       // ToolInputJson deltas
    std::string signature;  // Signature deltas
    bool stopped = false;
  };
  std::string id;
  std::string model;
  std::vector<Block> blocks;  // in start order
  Usage start_usage;
  Usage usage;  // from the last MessageDelta
  std::optional<StopReason> stop_reason;
  std::string stop_sequence;
  int pings = 0;
  bool message_stop = false;
  std::vector<ApiError> errors;
};
Rebuilt rebuild(const std::vector<StreamEvent>& events);

// Splits an SSE body into (event name, data JSON) pairs.
std::vector<std::pair<std::string, Json>> sseEvents(std::string_view bytes);

// IR values as JSON, every field included, for whole-value comparison.
Json toJson(const ContentBlock& block);
Json toJson(const Request& request);
Json toJson(const Response& response);
Json toJson(const StreamEvent& event);
Json toJson(const std::vector<StreamEvent>& events);
Json toJson(const Usage& usage);

}  // namespace sluice::wire::anthropic::test
