#pragma once
// The per-request script a test sends in the `x-mock-script` header (a JSON object).
// Every field is optional; an absent header means "answer normally". See docs/mock-provider.md.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::mock {

// Overrides of the usage the mock reports. `input_tokens` is the prompt part neither read from
// nor written to the cache (Anthropic's meaning); `output_tokens` includes `reasoning`.
struct UsageOverride {
  std::optional<std::int64_t> input_tokens;
  std::optional<std::int64_t> output_tokens;
  std::optional<std::int64_t> cache_read;
  std::optional<std::int64_t> cache_write;
  std::optional<std::int64_t> reasoning;
};

// How the answer ends, in neutral terms; each wire renders its own finish/stop reason.
enum class Finish { Stop, Length, ContentFilter };

struct Script {
  std::optional<int> status;                 // answer with this HTTP status and the wire's error body
  std::optional<std::string> error_type;     // Anthropic error.type, OpenAI error.type, Gemini error.status
  std::optional<std::string> error_message;
  std::optional<std::string> error_code;     // OpenAI error.code (and Responses in-stream error code)
  std::optional<std::string> retry_after;    // `retry-after` header value (seconds)
  int delay_ms = 0;                          // before the first byte
  int chunk_delay_ms = 0;                    // between stream events
  std::optional<int> stall_after_events;     // stop sending, keep the connection open
  std::optional<int> reset_after_events;     // abort the TCP connection (RST)
  std::optional<int> in_stream_error;        // emit the wire's in-stream error after N events
  // Bedrock's event stream: frame N (from 0) is sent with a corrupted message CRC.
  std::optional<int> bad_frame_after;
  bool echo = false;                         // answer with what was received
  // Usage from the simulated prefix cache of the path it was sent to (prefix_cache.h), unless
  // usage.cache_read is scripted.
  bool prefix_cache = false;
  std::optional<std::string> fixture;        // path relative to the fixtures dir to replay
  int interaction = 0;                       // which interaction of a cassette to replay
  std::optional<std::string> text;           // the answer text
  // The answer text is the last user text received (and a tool call's arguments, unless
  // tool_arguments says otherwise, are {"text": <it>}): shows what a gateway sent, as a model
  // that repeats its prompt would.
  bool echo_text = false;
  // Stream the text in pieces of at most this many bytes (never inside a UTF-8 sequence) instead
  // of one word per delta; 0 = words.
  int text_chunk_bytes = 0;
  std::optional<bool> tool_call;             // force (true) or forbid (false) a tool call
  std::optional<std::string> tool_name;      // which tool to call (default: the first one)
  std::optional<std::string> tool_namespace; // Responses: the namespace tool it belongs to (Codex's mcp__<server>)
  std::optional<nlohmann::ordered_json> tool_arguments;  // the call's arguments (an object)
  std::optional<bool> thinking;              // force (true) or forbid (false) thinking output
  std::optional<Finish> finish;              // "stop" | "length" | "content_filter"
  UsageOverride usage;
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers
  // Top-level body fields this "provider" does not support: a request carrying one is answered
  // 400 with the wire's own wording naming it (what real providers do with e.g. `seed`).
  std::vector<std::string> reject_fields;
};

// Parses the header value. Empty or all-blank text gives the default Script.
// Fails with a message naming the offending field on invalid JSON, a non-object, an unknown field
// or a field of the wrong type or range.
std::expected<Script, std::string> parseScript(std::string_view json_text);

}  // namespace sluice::mock
