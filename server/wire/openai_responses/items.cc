#include "server/wire/openai_responses/items.h"

#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_responses {

bool isContentPartType(std::string_view type) {
  return type.starts_with("input_") || type.starts_with("output_") || type == "refusal" || type == "summary_text";
}

ContentBlock thinkingFromReasoning(const Json& item) {
  ContentBlock block;
  block.type = ContentBlock::Type::Thinking;
  if (const Json* summary = member(item, "summary"); summary != nullptr && summary->is_array()) {
    for (const Json& part : *summary) {
      const Json* text = member(part, "text");
      if (text == nullptr || !text->is_string()) continue;
      if (!block.text.empty()) block.text += "\n\n";
      block.text += text->get<std::string>();
    }
  }
  block.signature = stringMember(item, "encrypted_content");
  block.signature_wire = catalog::Wire::OpenAIResponses;
  block.reasoning_id = stringMember(item, "id");
  return block;
}

std::optional<Json> parseArguments(const Json& item) {
  const std::string text = stringMember(item, "arguments");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
  Json parsed = parseBounded(text);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

Json reasoningItem(std::string_view id, std::string_view summary, std::string_view encrypted_content) {
  Json item = Json::object();
  if (!id.empty()) item["id"] = id;
  item["type"] = "reasoning";
  Json parts = Json::array();
  if (!summary.empty()) parts.push_back({{"type", "summary_text"}, {"text", summary}});
  item["summary"] = std::move(parts);
  if (!encrypted_content.empty()) item["encrypted_content"] = encrypted_content;
  return item;
}

std::string argumentsText(const ContentBlock& block) {
  if (block.tool_input.is_null()) return "{}";
  return dumpJsonText(block.tool_input);
}

Json functionCallItem(const ContentBlock& block, std::string_view id, std::string_view status,
                      std::string_view arguments) {
  Json item = Json::object();
  if (!id.empty()) item["id"] = id;
  item["type"] = "function_call";
  if (!status.empty()) item["status"] = status;
  item["arguments"] = arguments;
  item["call_id"] = block.tool_id;
  item["name"] = block.tool_name;
  if (!block.tool_namespace.empty()) item["namespace"] = block.tool_namespace;
  return item;
}

Json outputTextPart(std::string_view text) {
  return {{"type", "output_text"}, {"annotations", Json::array()}, {"logprobs", Json::array()}, {"text", text}};
}

Json outputMessageItem(std::string_view id, std::string_view status, std::string_view text) {
  Json item = Json::object();
  item["id"] = id;
  item["type"] = "message";
  item["status"] = status;
  item["content"] = Json::array({outputTextPart(text)});
  item["role"] = "assistant";
  return item;
}

}  // namespace sluice::wire::openai_responses
