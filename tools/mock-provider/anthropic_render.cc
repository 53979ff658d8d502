#include "tools/mock-provider/anthropic_render.h"

#include <nlohmann/json.hpp>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kArgumentFragmentBytes = 8;

std::string messageId(const Answer& answer) { return "msg_mock_" + std::to_string(answer.seq); }
std::string toolUseId(const Answer& answer) { return "toolu_mock_" + std::to_string(answer.seq); }

std::string stopReason(AnswerFinish finish) {
  switch (finish) {
    case AnswerFinish::Stop: return "end_turn";
    case AnswerFinish::Length: return "max_tokens";
    case AnswerFinish::ContentFilter: return "refusal";
    case AnswerFinish::ToolUse: return "tool_use";
  }
  return "end_turn";
}

Json fullUsage(const Usage& usage, std::int64_t output_tokens) {
  return Json{{"input_tokens", usage.input_tokens},
              {"cache_creation_input_tokens", usage.cache_write},
              {"cache_read_input_tokens", usage.cache_read},
              {"cache_creation", Json{{"ephemeral_5m_input_tokens", usage.cache_write}, {"ephemeral_1h_input_tokens", 0}}},
              {"output_tokens", output_tokens},
              {"service_tier", "standard"}};
}

bool hasTextBlock(const Answer& answer) { return !answer.text.empty() || !answer.tool_call; }

Json parsedArguments(const ToolCall& call) {
  Json input = Json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
  return input.is_object() ? input : Json::object();
}

SseEvent event(const Json& data) { return {data["type"].get<std::string>(), data.dump()}; }

}  // namespace

std::string renderAnthropicMessage(const Answer& answer) {
  Json content = Json::array();
  if (answer.thinking)
    content.push_back(Json{{"type", "thinking"}, {"thinking", *answer.thinking}, {"signature", answer.signature}});
  if (hasTextBlock(answer)) content.push_back(Json{{"type", "text"}, {"text", answer.text}});
  if (answer.tool_call)
    content.push_back(Json{{"type", "tool_use"},
                           {"id", toolUseId(answer)},
                           {"name", answer.tool_call->name},
                           {"input", parsedArguments(*answer.tool_call)}});
  Json body{{"id", messageId(answer)},
            {"type", "message"},
            {"role", "assistant"},
            {"model", answer.model},
            {"content", content},
            {"stop_reason", stopReason(answer.finish)},
            {"stop_sequence", nullptr},
            {"usage", fullUsage(answer.usage, answer.usage.output_tokens)}};
  return body.dump();
}

std::vector<SseEvent> renderAnthropicStream(const Answer& answer) {
  std::vector<SseEvent> events;
  events.push_back(event(Json{{"type", "message_start"},
                              {"message", Json{{"id", messageId(answer)},
                                               {"type", "message"},
                                               {"role", "assistant"},
                                               {"model", answer.model},
                                               {"content", Json::array()},
                                               {"stop_reason", nullptr},
                                               {"stop_sequence", nullptr},
                                               {"usage", fullUsage(answer.usage, 1)}}}}));
  int index = 0;
  bool pinged = false;
  auto start = [&](Json block) {
    events.push_back(event(Json{{"type", "content_block_start"}, {"index", index}, {"content_block", block}}));
    if (!pinged) {
      events.push_back(event(Json{{"type", "ping"}}));
      pinged = true;
    }
  };
  auto delta = [&](Json body) {
    events.push_back(event(Json{{"type", "content_block_delta"}, {"index", index}, {"delta", body}}));
  };
  auto stop = [&] { events.push_back(event(Json{{"type", "content_block_stop"}, {"index", index++}})); };

  if (answer.thinking) {
    start(Json{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
    for (const auto& piece : splitWords(*answer.thinking)) delta(Json{{"type", "thinking_delta"}, {"thinking", piece}});
    delta(Json{{"type", "thinking_delta"}, {"thinking", ""}});
    delta(Json{{"type", "signature_delta"}, {"signature", answer.signature}});
    stop();
  }
  if (hasTextBlock(answer)) {
    start(Json{{"type", "text"}, {"text", ""}});
    for (const auto& piece : textPieces(answer)) delta(Json{{"type", "text_delta"}, {"text", piece}});
    stop();
  }
  if (answer.tool_call) {
    start(Json{{"type", "tool_use"}, {"id", toolUseId(answer)}, {"name", answer.tool_call->name}, {"input", Json::object()}});
    if (answer.tool_call->arguments == "{}") {
      delta(Json{{"type", "input_json_delta"}, {"partial_json", ""}});
    } else {
      for (const auto& piece : splitFragments(answer.tool_call->arguments, kArgumentFragmentBytes))
        delta(Json{{"type", "input_json_delta"}, {"partial_json", piece}});
    }
    stop();
  }
  if (!pinged) events.push_back(event(Json{{"type", "ping"}}));

  const Usage& usage = answer.usage;
  events.push_back(event(Json{{"type", "message_delta"},
                              {"delta", Json{{"stop_reason", stopReason(answer.finish)}, {"stop_sequence", nullptr}}},
                              {"usage", Json{{"input_tokens", usage.input_tokens},
                                             {"cache_creation_input_tokens", usage.cache_write},
                                             {"cache_read_input_tokens", usage.cache_read},
                                             {"output_tokens", usage.output_tokens}}}}));
  events.push_back(event(Json{{"type", "message_stop"}}));
  return events;
}

std::vector<SseEvent> renderAnthropicStreamError(const ErrorSpec& error) {
  return {event(Json{{"type", "error"}, {"error", Json{{"type", error.type}, {"message", error.message}}}})};
}

std::string renderAnthropicCountTokens(std::int64_t input_tokens) {
  return Json{{"input_tokens", input_tokens}}.dump();
}

}  // namespace sluice::mock
