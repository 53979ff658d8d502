#pragma once
// Reads the little the mock needs from a provider request body, checking the minimum each wire
// requires (a JSON object, the model, Anthropic's max_tokens, the message list). Pure.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {

struct ToolDecl {
  std::string name;
  nlohmann::ordered_json schema;  // JSON Schema of the arguments (may be null)
};

enum class ToolChoice { Auto, None, Required, Named };

struct RequestInfo {
  std::string model;
  bool stream = false;
  bool include_usage = false;  // OpenAI Chat stream_options.include_usage
  // Every text of the prompt concatenated: system/instructions, message text of every role,
  // tool-result text. Its token count is the reported input usage.
  std::string prompt_text;
  // The text of the last turn when that turn is the user's; empty otherwise.
  std::string last_user_text;
  // The last turn carries a tool result (Anthropic tool_result, Chat role "tool",
  // Responses function_call_output, Gemini functionResponse).
  bool last_turn_is_tool_result = false;
  std::vector<ToolDecl> tools;  // function tools only, in request order
  ToolChoice tool_choice = ToolChoice::Auto;
  std::string tool_choice_name;  // for ToolChoice::Named
  // Anthropic thinking enabled/adaptive, Chat reasoning_effort, Responses reasoning,
  // Gemini thinkingConfig.includeThoughts.
  bool thinking_requested = false;
};

// Returns what the body asks for, or the wire's 400 error for a body the provider would reject.
std::expected<RequestInfo, ErrorSpec> inspectRequest(const Route& route, std::string_view body);

}  // namespace sluice::mock
