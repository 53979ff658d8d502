#include "tools/mock-provider/answer.h"

#include <algorithm>
#include <cctype>

#include "tools/mock-provider/tokens.h"
#include "tools/mock-provider/tool_arguments.h"

namespace sluice::mock {
namespace {

bool containsToolWord(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("tool") != std::string::npos;
}

bool wantsToolCall(const RequestInfo& request, const Script& script) {
  if (script.tool_call) return *script.tool_call;
  if (request.tools.empty() || request.tool_choice == ToolChoice::None || request.last_turn_is_tool_result)
    return false;
  if (request.tool_choice == ToolChoice::Required || request.tool_choice == ToolChoice::Named) return true;
  return containsToolWord(request.last_user_text);
}

ToolCall chooseToolCall(const RequestInfo& request, const Script& script) {
  std::string name = script.tool_name.value_or("");
  if (name.empty() && request.tool_choice == ToolChoice::Named) name = request.tool_choice_name;
  if (name.empty()) name = request.tools.empty() ? "mock_tool" : request.tools.front().name;

  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();
  if (script.tool_arguments) {
    arguments = *script.tool_arguments;
  } else if (script.echo_text) {
    arguments = nlohmann::ordered_json{{"text", request.last_user_text}};
  } else {
    const auto tool = std::find_if(request.tools.begin(), request.tools.end(),
                                   [&](const ToolDecl& decl) { return decl.name == name; });
    if (tool != request.tools.end()) arguments = argumentsForSchema(tool->schema);
  }
  return {name, arguments.dump(), ""};
}

}  // namespace

std::vector<std::string> textPieces(const Answer& answer) {
  return answer.text_chunk_bytes > 0 ? splitFragments(answer.text, answer.text_chunk_bytes) : splitWords(answer.text);
}

std::string defaultAnswerText(std::string_view model) {
  return "Hello from the mock provider (" + std::string(model) + ").";
}

std::string defaultThinkingText(std::string_view model) {
  return "Thinking about the request to " + std::string(model) + ": a short greeting will do.";
}

Answer planAnswer(const RequestInfo& request, const Script& script, std::uint64_t seq, std::int64_t created) {
  Answer answer;
  answer.seq = seq;
  answer.created = created;
  answer.model = request.model;

  if (wantsToolCall(request, script)) {
    answer.tool_call = chooseToolCall(request, script);
    if (script.tool_namespace) answer.tool_call->namespace_name = *script.tool_namespace;
  }
  if (script.text) answer.text = *script.text;
  else if (script.echo_text) answer.text = request.last_user_text;
  else if (!answer.tool_call) answer.text = defaultAnswerText(request.model);
  answer.text_chunk_bytes = static_cast<std::size_t>(script.text_chunk_bytes);

  if (script.thinking.value_or(request.thinking_requested)) {
    answer.thinking = defaultThinkingText(request.model);
    answer.signature = base64Encode("sluice-mock-signature/" + request.model);
  }

  if (script.finish) {
    switch (*script.finish) {
      case Finish::Stop: answer.finish = AnswerFinish::Stop; break;
      case Finish::Length: answer.finish = AnswerFinish::Length; break;
      case Finish::ContentFilter: answer.finish = AnswerFinish::ContentFilter; break;
    }
  } else if (answer.tool_call) {
    answer.finish = AnswerFinish::ToolUse;
  }

  Usage& usage = answer.usage;
  usage.input_tokens = script.usage.input_tokens.value_or(countTokens(request.prompt_text));
  usage.cache_read = script.usage.cache_read.value_or(0);
  usage.cache_write = script.usage.cache_write.value_or(0);
  usage.reasoning = script.usage.reasoning.value_or(answer.thinking ? countTokens(*answer.thinking) : 0);
  const std::int64_t arguments = answer.tool_call ? countTokens(answer.tool_call->arguments) : 0;
  usage.output_tokens = script.usage.output_tokens.value_or(countTokens(answer.text) + arguments + usage.reasoning);
  return answer;
}

}  // namespace sluice::mock
