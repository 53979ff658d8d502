#include "tools/mock-provider/chat_render.h"

#include <nlohmann/json.hpp>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kArgumentFragmentBytes = 8;

std::string completionId(const Answer& answer) { return "chatcmpl-mock-" + std::to_string(answer.seq); }
std::string callId(const Answer& answer) { return "call_mock_" + std::to_string(answer.seq); }

std::string finishReason(AnswerFinish finish) {
  switch (finish) {
    case AnswerFinish::Stop: return "stop";
    case AnswerFinish::Length: return "length";
    case AnswerFinish::ContentFilter: return "content_filter";
    case AnswerFinish::ToolUse: return "tool_calls";
  }
  return "stop";
}

Json usageJson(const Usage& usage) {
  Json prompt_details{{"cached_tokens", usage.cache_read}, {"audio_tokens", 0}};
  if (usage.cache_write > 0) prompt_details["cache_write_tokens"] = usage.cache_write;
  return Json{{"prompt_tokens", usage.promptTotal()},
              {"completion_tokens", usage.output_tokens},
              {"total_tokens", usage.promptTotal() + usage.output_tokens},
              {"prompt_tokens_details", prompt_details},
              {"completion_tokens_details", Json{{"reasoning_tokens", usage.reasoning},
                                                 {"audio_tokens", 0},
                                                 {"accepted_prediction_tokens", 0},
                                                 {"rejected_prediction_tokens", 0}}}};
}

bool hasText(const Answer& answer) { return !answer.text.empty() || !answer.tool_call; }

Json chunkBase(const Answer& answer) {
  return Json{{"id", completionId(answer)},
              {"object", "chat.completion.chunk"},
              {"created", answer.created},
              {"model", answer.model},
              {"service_tier", "default"},
              {"system_fingerprint", "fp_mock"}};
}

}  // namespace

std::string renderChatCompletion(const Answer& answer) {
  Json message{{"role", "assistant"},
               {"content", hasText(answer) ? Json(answer.text) : Json(nullptr)},
               {"refusal", nullptr},
               {"annotations", Json::array()}};
  if (answer.tool_call)
    message["tool_calls"] = Json::array({Json{{"id", callId(answer)},
                                              {"type", "function"},
                                              {"function", Json{{"name", answer.tool_call->name},
                                                                {"arguments", answer.tool_call->arguments}}}}});
  Json body{{"id", completionId(answer)},
            {"object", "chat.completion"},
            {"created", answer.created},
            {"model", answer.model},
            {"choices", Json::array({Json{{"index", 0},
                                          {"message", message},
                                          {"logprobs", nullptr},
                                          {"finish_reason", finishReason(answer.finish)}}})},
            {"usage", usageJson(answer.usage)},
            {"service_tier", "default"},
            {"system_fingerprint", "fp_mock"}};
  return body.dump();
}

std::vector<SseEvent> renderChatStream(const Answer& answer, bool include_usage) {
  std::vector<SseEvent> events;
  auto chunk = [&](Json delta, Json finish_reason = nullptr) {
    Json data = chunkBase(answer);
    data["choices"] = Json::array(
        {Json{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish_reason}}});
    if (include_usage) data["usage"] = nullptr;
    events.push_back({"", data.dump()});
  };

  Json first_call;
  if (answer.tool_call)
    first_call = Json::array({Json{{"index", 0},
                                   {"id", callId(answer)},
                                   {"type", "function"},
                                   {"function", Json{{"name", answer.tool_call->name}, {"arguments", ""}}}}});
  if (hasText(answer)) {
    chunk(Json{{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}});
    for (const auto& piece : textPieces(answer)) chunk(Json{{"content", piece}});
    if (answer.tool_call) chunk(Json{{"tool_calls", first_call}});
  } else {
    chunk(Json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", first_call}, {"refusal", nullptr}});
  }
  if (answer.tool_call)
    for (const auto& piece : splitFragments(answer.tool_call->arguments, kArgumentFragmentBytes))
      chunk(Json{{"tool_calls", Json::array({Json{{"index", 0}, {"function", Json{{"arguments", piece}}}}})}});
  chunk(Json::object(), finishReason(answer.finish));
  if (include_usage) {
    Json data = chunkBase(answer);
    data["choices"] = Json::array();
    data["usage"] = usageJson(answer.usage);
    events.push_back({"", data.dump()});
  }
  events.push_back({"", "[DONE]"});
  return events;
}

std::vector<SseEvent> renderChatStreamError(const ErrorSpec& error) {
  Json data{{"error", Json{{"message", error.message},
                           {"type", error.type},
                           {"param", error.param ? Json(*error.param) : Json(nullptr)},
                           {"code", error.code ? Json(*error.code) : Json(nullptr)}}}};
  return {{"", data.dump()}};
}

}  // namespace sluice::mock
