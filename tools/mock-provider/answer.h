#pragma once
// Decides what the mock answers to one request, in neutral terms that each wire renderer turns
// into its own body or event stream. Deterministic: the same request, script and sequence number
// give the same answer. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/mock-provider/request_info.h"
#include "tools/mock-provider/script.h"
#include "tools/mock-provider/usage.h"

namespace sluice::mock {

struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object, compact ("{\"city\":\"mock-city\"}")
  std::string namespace_name;  // Responses: a tool of a `namespace` tool (Codex's MCP servers); "" for none
};

enum class AnswerFinish { Stop, Length, ContentFilter, ToolUse };

struct Answer {
  std::uint64_t seq = 0;     // the request's number: ids are "msg_mock_<seq>", "call_mock_<seq>", …
  std::int64_t created = 0;  // unix seconds, for OpenAI `created`
  std::string model;
  std::optional<std::string> thinking;  // reasoning text; OpenAI Chat reports only its token count
  std::string signature;     // Anthropic signature, Gemini thoughtSignature, Responses encrypted_content
  std::string text;          // may be empty when the answer is only a tool call
  std::size_t text_chunk_bytes = 0;  // streamed text pieces: at most this many bytes; 0 = words
  std::optional<ToolCall> tool_call;
  AnswerFinish finish = AnswerFinish::Stop;
  Usage usage;
};

// "Hello from the mock provider (<model>)."
std::string defaultAnswerText(std::string_view model);
// "Thinking about the request to <model>: a short greeting will do."
std::string defaultThinkingText(std::string_view model);

// The answer:
// - tool call when the script says tool_call:true, or (unless tool_call:false) the request has
//   tools, tool_choice is not none, the last turn is not a tool result, and tool_choice forces a
//   call or the last user text contains "tool" (any case). The tool is script.tool_name, else
//   the named tool_choice, else the first tool ("mock_tool" when none); arguments are
//   script.tool_arguments, else argumentsForSchema(tool schema).
// - text: script.text, else the default text; empty for a tool call without script.text.
// - thinking when script.thinking, else when the request asks for it.
// - usage: input = countTokens(prompt_text); reasoning = countTokens(thinking);
//   output = countTokens(text) + countTokens(arguments) + reasoning; script.usage overrides.
// With script.echo_text the text is the last user text, and the tool arguments (unless scripted)
// {"text": <it>}.
Answer planAnswer(const RequestInfo& request, const Script& script, std::uint64_t seq, std::int64_t created);

// The streamed pieces of the answer's text: splitFragments(text, text_chunk_bytes), or
// splitWords(text) when text_chunk_bytes is 0.
std::vector<std::string> textPieces(const Answer& answer);

}  // namespace sluice::mock
