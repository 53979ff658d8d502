#include "tools/mock-provider/responses_render.h"

#include <nlohmann/json.hpp>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kArgumentFragmentBytes = 8;

std::string suffix(const Answer& answer) { return "mock_" + std::to_string(answer.seq); }
std::string responseId(const Answer& answer) { return "resp_" + suffix(answer); }
std::string reasoningId(const Answer& answer) { return "rs_" + suffix(answer); }
std::string messageId(const Answer& answer) { return "msg_" + suffix(answer); }
std::string functionCallId(const Answer& answer) { return "fc_" + suffix(answer); }
std::string callId(const Answer& answer) { return "call_" + suffix(answer); }

bool hasMessage(const Answer& answer) { return !answer.text.empty() || !answer.tool_call; }

Json usageJson(const Usage& usage) {
  Json input_details{{"cached_tokens", usage.cache_read}};
  if (usage.cache_write > 0) input_details["cache_write_tokens"] = usage.cache_write;
  return Json{{"input_tokens", usage.promptTotal()},
              {"input_tokens_details", input_details},
              {"output_tokens", usage.output_tokens},
              {"output_tokens_details", Json{{"reasoning_tokens", usage.reasoning}}},
              {"total_tokens", usage.promptTotal() + usage.output_tokens}};
}

Json responseObject(const Answer& answer, std::string_view status, Json output, Json usage) {
  Json incomplete = nullptr;
  if (status == "incomplete")
    incomplete = Json{{"reason", answer.finish == AnswerFinish::Length ? "max_output_tokens" : "content_filter"}};
  return Json{{"id", responseId(answer)},
              {"object", "response"},
              {"created_at", answer.created},
              {"status", status},
              {"error", nullptr},
              {"incomplete_details", incomplete},
              {"instructions", nullptr},
              {"max_output_tokens", nullptr},
              {"model", answer.model},
              {"output", output},
              {"parallel_tool_calls", true},
              {"previous_response_id", nullptr},
              {"reasoning", Json{{"effort", nullptr}, {"summary", nullptr}}},
              {"store", true},
              {"temperature", 1.0},
              {"text", Json{{"format", Json{{"type", "text"}}}}},
              {"tool_choice", "auto"},
              {"tools", Json::array()},
              {"top_p", 1.0},
              {"truncation", "disabled"},
              {"usage", usage},
              {"metadata", Json::object()}};
}

Json reasoningItem(const Answer& answer) {
  return Json{{"id", reasoningId(answer)},
              {"type", "reasoning"},
              {"summary", Json::array({Json{{"type", "summary_text"}, {"text", *answer.thinking}}})},
              {"encrypted_content", answer.signature}};
}

Json textPart(std::string_view text) {
  return Json{{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}, {"logprobs", Json::array()}};
}

Json messageItem(const Answer& answer, std::string_view status, Json content) {
  return Json{{"id", messageId(answer)}, {"type", "message"}, {"status", status}, {"role", "assistant"}, {"content", content}};
}

Json functionCallItem(const Answer& answer, std::string_view status, std::string_view arguments) {
  Json item{{"id", functionCallId(answer)},
            {"type", "function_call"},
            {"status", status},
            {"arguments", arguments},
            {"call_id", callId(answer)},
            {"name", answer.tool_call->name}};
  if (!answer.tool_call->namespace_name.empty()) item["namespace"] = answer.tool_call->namespace_name;
  return item;
}

Json outputItems(const Answer& answer) {
  Json output = Json::array();
  if (answer.thinking) output.push_back(reasoningItem(answer));
  if (hasMessage(answer)) output.push_back(messageItem(answer, "completed", Json::array({textPart(answer.text)})));
  if (answer.tool_call) output.push_back(functionCallItem(answer, "completed", answer.tool_call->arguments));
  return output;
}

std::string terminalStatus(const Answer& answer) {
  return answer.finish == AnswerFinish::Length || answer.finish == AnswerFinish::ContentFilter ? "incomplete"
                                                                                                : "completed";
}

// Builds numbered events: {"type": name, fields…, "sequence_number": n}.
class Sequencer {
 public:
  explicit Sequencer(int first) : next_(first) {}
  void add(std::string_view type, const Json& fields) {
    Json data{{"type", type}};
    for (const auto& [key, value] : fields.items()) data[key] = value;
    data["sequence_number"] = next_++;
    events_.push_back({std::string(type), data.dump()});
  }
  std::vector<SseEvent> take() { return std::move(events_); }

 private:
  int next_;
  std::vector<SseEvent> events_;
};

}  // namespace

std::string renderResponse(const Answer& answer) {
  return responseObject(answer, terminalStatus(answer), outputItems(answer), usageJson(answer.usage)).dump();
}

std::vector<SseEvent> renderResponsesStream(const Answer& answer) {
  Sequencer out(0);
  out.add("response.created", Json{{"response", responseObject(answer, "in_progress", Json::array(), nullptr)}});
  out.add("response.in_progress", Json{{"response", responseObject(answer, "in_progress", Json::array(), nullptr)}});
  int output_index = 0;

  if (answer.thinking) {
    const std::string id = reasoningId(answer);
    Json added{{"id", id}, {"type", "reasoning"}, {"summary", Json::array()}, {"encrypted_content", answer.signature}};
    out.add("response.output_item.added", Json{{"output_index", output_index}, {"item", added}});
    const Json where{{"item_id", id}, {"output_index", output_index}, {"summary_index", 0}};
    Json fields = where;
    fields["part"] = Json{{"type", "summary_text"}, {"text", ""}};
    out.add("response.reasoning_summary_part.added", fields);
    for (const auto& piece : splitWords(*answer.thinking)) {
      fields = where;
      fields["delta"] = piece;
      out.add("response.reasoning_summary_text.delta", fields);
    }
    fields = where;
    fields["text"] = *answer.thinking;
    out.add("response.reasoning_summary_text.done", fields);
    fields = where;
    fields["part"] = Json{{"type", "summary_text"}, {"text", *answer.thinking}};
    out.add("response.reasoning_summary_part.done", fields);
    out.add("response.output_item.done", Json{{"output_index", output_index}, {"item", reasoningItem(answer)}});
    ++output_index;
  }

  if (hasMessage(answer)) {
    const std::string id = messageId(answer);
    out.add("response.output_item.added",
            Json{{"output_index", output_index}, {"item", messageItem(answer, "in_progress", Json::array())}});
    const Json where{{"item_id", id}, {"output_index", output_index}, {"content_index", 0}};
    Json fields = where;
    fields["part"] = textPart("");
    out.add("response.content_part.added", fields);
    for (const auto& piece : textPieces(answer)) {
      fields = where;
      fields["delta"] = piece;
      fields["logprobs"] = Json::array();
      out.add("response.output_text.delta", fields);
    }
    fields = where;
    fields["text"] = answer.text;
    fields["logprobs"] = Json::array();
    out.add("response.output_text.done", fields);
    fields = where;
    fields["part"] = textPart(answer.text);
    out.add("response.content_part.done", fields);
    out.add("response.output_item.done",
            Json{{"output_index", output_index},
                 {"item", messageItem(answer, "completed", Json::array({textPart(answer.text)}))}});
    ++output_index;
  }

  if (answer.tool_call) {
    const std::string id = functionCallId(answer);
    out.add("response.output_item.added",
            Json{{"output_index", output_index}, {"item", functionCallItem(answer, "in_progress", "")}});
    for (const auto& piece : splitFragments(answer.tool_call->arguments, kArgumentFragmentBytes))
      out.add("response.function_call_arguments.delta",
              Json{{"item_id", id}, {"output_index", output_index}, {"delta", piece}});
    out.add("response.function_call_arguments.done",
            Json{{"item_id", id}, {"output_index", output_index}, {"arguments", answer.tool_call->arguments}});
    out.add("response.output_item.done",
            Json{{"output_index", output_index},
                 {"item", functionCallItem(answer, "completed", answer.tool_call->arguments)}});
  }

  const std::string status = terminalStatus(answer);
  out.add(status == "completed" ? "response.completed" : "response.incomplete",
          Json{{"response", responseObject(answer, status, outputItems(answer), usageJson(answer.usage))}});
  return out.take();
}

std::vector<SseEvent> renderResponsesStreamError(const Answer& answer, const ErrorSpec& error, int next_sequence) {
  Sequencer out(next_sequence);
  const std::string code = error.code.value_or(error.type);
  out.add("error", Json{{"code", code}, {"message", error.message}, {"param", nullptr}});
  Json response = responseObject(answer, "failed", Json::array(), nullptr);
  response["error"] = Json{{"code", code}, {"message", error.message}};
  out.add("response.failed", Json{{"response", response}});
  return out.take();
}

}  // namespace sluice::mock
