#pragma once
// Helpers for the openai_responses codec tests: fixture files (from $SLUICE_FIXTURES_DIR),
// cassette bodies as JSON, replaying recorded chunks as SSE, feeding a stream decoder in random
// pieces, and folding stream events back into whole blocks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "server/wire/codec.h"

namespace sluice::wire::openai_responses::test {

std::string fixturePath(std::string_view relative);
std::string readFixture(std::string_view relative);
// Non-empty lines of a fixture file.
std::vector<std::string> fixtureLines(std::string_view relative);
// The cassette's interactions.
YAML::Node loadCassette(std::string_view relative);
// A YAML node (parsed_body) as JSON; quoted scalars stay strings, plain ones become numbers,
// booleans or null when they read as such.
Json yamlToJson(const YAML::Node& node);

// vercel-ai chunks (one JSON payload per line) as the SSE the provider sent:
// "event: <type>\ndata: <line>\n\n" per line.
std::string chunksToSse(const std::vector<std::string>& lines);
// The concatenated responses of a chunks file, one list of lines per response.created.
std::vector<std::vector<std::string>> splitResponses(const std::vector<std::string>& lines);

// Feeds the whole body at once, then finish().
std::vector<StreamEvent> decodeWhole(std::string_view body);
// Feeds the body in pieces of 1..max_piece bytes chosen by a seeded generator, then finish().
std::vector<StreamEvent> decodeInPieces(std::string_view body, uint32_t seed, size_t max_piece = 23);

// Stream events folded into whole blocks: the text, arguments and signatures concatenated per
// index; the last MessageDelta's stop and usage; the MessageStart id/model; the errors.
struct Assembled {
  std::string id;
  std::string model;
  struct Block {
    ContentBlock::Type type = ContentBlock::Type::Text;
    std::string text;       // Text / Thinking text, ToolUse arguments
    std::string signature;
    std::string tool_id;
    std::string tool_name;
    std::string reasoning_id;
    bool stopped = false;
  };
  std::vector<Block> blocks;
  std::optional<StopReason> stop_reason;
  Usage usage;
  bool usage_reported = false;
  int message_starts = 0;
  int message_stops = 0;
  std::vector<ApiError> errors;
};
Assembled assemble(const std::vector<StreamEvent>& events);

// Runs a stream encoder over the events and returns everything it wrote, finish() included.
std::string encodeStream(const std::vector<StreamEvent>& events, const ResponseContext& context);

struct SentEvent {
  std::string event;
  Json data;
};
// Parses an SSE body (as written by the stream encoder) into named events with JSON data.
std::vector<SentEvent> parseSent(std::string_view body);

}  // namespace sluice::wire::openai_responses::test
