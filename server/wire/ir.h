#pragma once
// The neutral intermediate representation every wire codec decodes into and encodes from.
// Three client formats and four provider wires meet here, so adding a wire is one codec, not a
// row of pairwise translators. Plain values; no I/O.
//
// Conventions every codec keeps:
// - Usage is in the neutral counting of server/wire/usage.h (input includes cached tokens,
//   output includes reasoning tokens).
// - Tool-call ids are kept byte for byte across turns. Gemini sends none: its codec mints
//   deterministic ids (see gemini codec) and matches results back by id -> name through history.
// - Thinking blocks keep their signature unchanged. `signature_wire` says which provider wire
//   minted it, so an encoder only sends back signatures its provider can verify and drops the
//   others (an Anthropic signature means nothing to Gemini).
// - Tool inputs are JSON objects here; wires that carry them as strings (OpenAI) parse and dump.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "server/wire/api_error.h"
#include "server/wire/usage.h"

namespace sluice::wire {

using Json = nlohmann::ordered_json;

enum class Role { User, Assistant };

enum class StopReason { EndTurn, MaxTokens, StopSequence, ToolUse, Refusal, PauseTurn, ContextWindowExceeded, Error };

struct ImageSource {
  enum class Kind { Base64, Url } kind = Kind::Base64;
  std::string media_type;  // "image/png" (Base64; may be empty for Url)
  std::string data;        // base64 payload (Base64)
  std::string url;         // http(s) URL (Url)
};

struct ContentBlock {
  enum class Type { Text, Image, ToolUse, ToolResult, Thinking, RedactedThinking, Opaque } type = Type::Text;

  std::string text;  // Text; Thinking: the thinking (or summary) text
  ImageSource image; // Image

  // ToolUse: the model's call.
  std::string tool_id;
  std::string tool_name;
  Json tool_input = Json::object();
  // ToolUse on the Responses wire: the `namespace` tool the called function belongs to (Codex
  // declares each MCP server's tools as one, `mcp__<server>`); "" for a top-level function. Kept
  // across a Responses-to-Responses translation (a masked turn); other wires have no such field.
  std::string tool_namespace;

  // ToolResult: the caller's answer to a call, matched by tool_use_id.
  std::string tool_use_id;
  std::vector<ContentBlock> result;  // Text and Image blocks
  bool is_error = false;

  // Thinking: signature (Anthropic signature, Gemini thoughtSignature, Responses encrypted_content)
  // and the wire that minted it. RedactedThinking: `data` holds the opaque payload.
  std::string signature;
  std::optional<catalog::Wire> signature_wire;
  std::string data;
  std::string reasoning_id;  // Responses reasoning item id ("rs_..."), when known

  // Anthropic cache_control on this block, kept for Anthropic targets, dropped elsewhere.
  Json cache_control;

  // Opaque: a block of a type this IR does not model (server tools, documents, ...), kept as
  // received with the wire it came from; only an encoder of that same wire sends it on.
  Json raw;
  std::optional<catalog::Wire> raw_wire;

  // A Text block holding `text`.
  static ContentBlock ofText(std::string text) {
    ContentBlock block;
    block.text = std::move(text);
    return block;
  }
  // An Opaque block: `raw` kept as received from `wire`.
  static ContentBlock ofOpaque(Json raw, catalog::Wire wire) {
    ContentBlock block;
    block.type = Type::Opaque;
    block.raw = std::move(raw);
    block.raw_wire = wire;
    return block;
  }
};

struct Message {
  Role role = Role::User;
  std::vector<ContentBlock> content;
};

struct Tool {
  std::string name;
  std::string description;
  Json input_schema = Json::object();  // JSON Schema, type object
  std::optional<bool> strict;
  Json cache_control;
  // A provider-hosted tool (web search, code execution, ...) kept verbatim for its own wire.
  Json raw;
  std::optional<catalog::Wire> raw_wire;
};

struct ToolChoice {
  enum class Mode { Auto, Any, Tool, None } mode = Mode::Auto;
  std::string name;  // Mode::Tool
  bool disable_parallel = false;
};

struct ResponseFormat {
  enum class Kind { Text, JsonObject, JsonSchema } kind = Kind::Text;
  std::string name;
  Json schema;
  std::optional<bool> strict;
};

struct Reasoning {
  bool enabled = true;
  std::optional<int64_t> budget_tokens;  // Anthropic budget_tokens, Gemini thinkingBudget
  std::string effort;                    // "minimal" | "low" | "medium" | "high" | ... (OpenAI)
  std::string summary;                   // Responses reasoning.summary
};

struct Request {
  std::string model;
  std::vector<ContentBlock> system;  // Text blocks, in order (cache_control kept)
  std::vector<Message> messages;
  std::vector<Tool> tools;
  std::optional<ToolChoice> tool_choice;
  std::optional<bool> parallel_tool_calls;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> top_k;
  std::vector<std::string> stop_sequences;
  bool stream = false;
  std::optional<ResponseFormat> response_format;
  std::optional<Reasoning> reasoning;
  std::optional<std::string> user;  // end-user id (Anthropic metadata.user_id, OpenAI user)
};

struct Response {
  std::string id;
  std::string model;
  std::vector<ContentBlock> content;
  StopReason stop_reason = StopReason::EndTurn;
  std::string stop_sequence;
  Usage usage;
  bool usage_reported = false;  // false when the provider gave no usage at all
};

// One step of a streamed answer. The shape follows the most structured wire (indexed content
// blocks); every stream decoder produces it and every stream encoder consumes it.
struct StreamEvent {
  enum class Type {
    MessageStart,  // id, model, usage (input side, when the provider gave it)
    BlockStart,    // index, block (type; ToolUse: tool_id + tool_name; Thinking/Opaque as known)
    BlockDelta,    // index, delta_kind, delta
    BlockStop,     // index
    MessageDelta,  // stop_reason, stop_sequence, usage (cumulative so far)
    MessageStop,   // end of a well-formed stream
    Ping,
    Error,         // error: an in-stream failure; the stream ends after it
  } type = Type::Ping;

  int index = 0;
  ContentBlock block;

  enum class DeltaKind { Text, ToolInputJson, Thinking, Signature } delta_kind = DeltaKind::Text;
  std::string delta;

  std::string id;
  std::string model;
  Usage usage;
  bool usage_reported = false;
  std::optional<StopReason> stop_reason;
  std::string stop_sequence;

  ApiError error;
};

}  // namespace sluice::wire
