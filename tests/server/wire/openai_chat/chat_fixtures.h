#pragma once
// Test helpers for the openai_chat codec: the recorded fixtures (read at test time from
// SLUICE_FIXTURES_DIR), YAML cassettes as JSON, and a stream replayer that folds the neutral
// events back into what a client would have seen, checking the event order on the way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "server/wire/codec.h"
#include "server/wire/ir.h"

namespace sluice::wire::openai_chat::testing {

// The text of tests/fixtures/<relative>.
std::string readFixture(const std::string& relative);

// A VCR cassette's interactions.
YAML::Node loadCassette(const std::string& relative);

// A YAML value as JSON: plain scalars are typed (null, booleans, integers, floats), quoted ones
// stay strings, so a re-serialized `parsed_body` reads as the JSON it came from.
Json yamlToJson(const YAML::Node& node);

// A vercel-ai *.chunks.txt file (one data payload per line) as the SSE body the provider sent:
// "data: <line>\n\n" per line, then "data: [DONE]\n\n".
std::string sseFromChunkLines(const std::string& lines);

// Feeds the body whole, or in pieces of random size (1..max_piece bytes, fixed seed).
std::vector<StreamEvent> decodeWhole(const std::string& body);
std::vector<StreamEvent> decodeInPieces(const std::string& body, unsigned seed, size_t max_piece = 17);

struct ToolCallSeen {
  std::string id;
  std::string name;
  std::string arguments;  // concatenated fragments
};

// The neutral events folded into an answer.
struct Folded {
  std::string id;
  std::string model;
  std::string text;
  std::string thinking;
  std::vector<ToolCallSeen> tools;
  std::optional<StopReason> stop_reason;
  Usage usage;
  bool usage_reported = false;
  int message_starts = 0;
  int message_stops = 0;
  std::optional<ApiError> error;
  std::vector<std::string> order_problems;  // empty when blocks open, fill and close in sequence
};

Folded fold(const std::vector<StreamEvent>& events);

// Comparable text of an event list (types, indices, deltas, ids, usage), to compare two runs.
std::string describe(const std::vector<StreamEvent>& events);

// The data payloads of a Chat SSE body, in order ("[DONE]" included as is).
std::vector<std::string> dataPayloads(const std::string& sse);

}  // namespace sluice::wire::openai_chat::testing
