#include "tests/server/wire/openai_chat/ir_json.h"

namespace sluice::wire::openai_chat::testing {

namespace {

template <typename T>
Json optional(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json wireName(const std::optional<catalog::Wire>& wire) {
  return wire ? Json(std::string(catalog::toString(*wire))) : Json(nullptr);
}

Json blocks(const std::vector<ContentBlock>& content) {
  Json out = Json::array();
  for (const auto& block : content) out.push_back(toJson(block));
  return out;
}

Json usage(const Usage& usage) {
  return Json{{"input", usage.input_tokens}, {"output", usage.output_tokens}, {"cache_read", usage.cache_read_tokens},
              {"cache_write", usage.cache_write_tokens}, {"reasoning", usage.reasoning_tokens}};
}

}  // namespace

Json toJson(const ContentBlock& block) {
  return Json{{"type", static_cast<int>(block.type)},
              {"text", block.text},
              {"image", {{"kind", static_cast<int>(block.image.kind)}, {"media_type", block.image.media_type},
                         {"data", block.image.data}, {"url", block.image.url}}},
              {"tool_id", block.tool_id},
              {"tool_name", block.tool_name},
              {"tool_input", block.tool_input},
              {"tool_use_id", block.tool_use_id},
              {"result", blocks(block.result)},
              {"is_error", block.is_error},
              {"signature", block.signature},
              {"signature_wire", wireName(block.signature_wire)},
              {"data", block.data},
              {"raw", block.raw},
              {"raw_wire", wireName(block.raw_wire)}};
}

Json toJson(const Request& request) {
  Json messages = Json::array();
  for (const auto& message : request.messages) {
    messages.push_back(Json{{"role", static_cast<int>(message.role)}, {"content", blocks(message.content)}});
  }
  Json tools = Json::array();
  for (const auto& tool : request.tools) {
    tools.push_back(Json{{"name", tool.name}, {"description", tool.description}, {"input_schema", tool.input_schema},
                         {"strict", optional(tool.strict)}, {"raw", tool.raw}, {"raw_wire", wireName(tool.raw_wire)}});
  }
  Json out = {{"model", request.model},
              {"system", blocks(request.system)},
              {"messages", std::move(messages)},
              {"tools", std::move(tools)},
              {"parallel_tool_calls", optional(request.parallel_tool_calls)},
              {"max_tokens", optional(request.max_tokens)},
              {"temperature", optional(request.temperature)},
              {"top_p", optional(request.top_p)},
              {"top_k", optional(request.top_k)},
              {"stop", request.stop_sequences},
              {"stream", request.stream},
              {"user", optional(request.user)}};
  out["tool_choice"] = request.tool_choice ? Json{{"mode", static_cast<int>(request.tool_choice->mode)},
                                                  {"name", request.tool_choice->name},
                                                  {"disable_parallel", request.tool_choice->disable_parallel}}
                                           : Json(nullptr);
  out["response_format"] = request.response_format
                               ? Json{{"kind", static_cast<int>(request.response_format->kind)},
                                      {"name", request.response_format->name},
                                      {"schema", request.response_format->schema},
                                      {"strict", optional(request.response_format->strict)}}
                               : Json(nullptr);
  out["reasoning"] = request.reasoning ? Json{{"enabled", request.reasoning->enabled},
                                              {"budget", optional(request.reasoning->budget_tokens)},
                                              {"effort", request.reasoning->effort},
                                              {"summary", request.reasoning->summary}}
                                       : Json(nullptr);
  return out;
}

Json toJson(const Response& response) {
  return Json{{"id", response.id},
              {"model", response.model},
              {"content", blocks(response.content)},
              {"stop_reason", static_cast<int>(response.stop_reason)},
              {"stop_sequence", response.stop_sequence},
              {"usage", usage(response.usage)},
              {"usage_reported", response.usage_reported}};
}

}  // namespace sluice::wire::openai_chat::testing
