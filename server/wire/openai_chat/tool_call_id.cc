#include "server/wire/openai_chat/tool_call_id.h"

#include <utility>

#include "server/wire/signature_envelope.h"

namespace sluice::wire::openai_chat {
namespace {

bool isBase64(std::string_view text) {
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                    c == '/' || c == '-' || c == '_' || c == '=';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string toolCallIdFor(std::string_view tool_id, std::string_view gemini_signature) {
  if (gemini_signature.empty() || tool_id.empty() || tool_id.size() > kMaxPlainToolCallIdBytes ||
      tool_id.find(':') != std::string_view::npos) {
    return std::string(tool_id);
  }
  std::string id = wrapSignature(catalog::Wire::OpenAIChat, catalog::Wire::Gemini, tool_id, gemini_signature);
  // NOTE: a signature too long to carry is dropped rather than handing out an id the decoder
  // would refuse; Gemini then gets the validator-skipping value (request_contents.cc).
  if (id.size() > kMaxToolCallIdBytes) return std::string(tool_id);
  return id;
}

std::expected<ChatToolCallId, ApiError> parseToolCallId(std::string_view id, const std::string& param) {
  if (id.size() > kMaxToolCallIdBytes) {
    return std::unexpected(ApiError::invalidRequest(
        "a tool call id may hold at most " + std::to_string(kMaxToolCallIdBytes) + " bytes", param));
  }
  UnwrappedSignature unwrapped = unwrapSignature(catalog::Wire::OpenAIChat, id);
  if (!unwrapped.wrapped || unwrapped.wire != catalog::Wire::Gemini) return ChatToolCallId{std::string(id), {}};
  if (unwrapped.reasoning_id.empty() || unwrapped.reasoning_id.size() > kMaxPlainToolCallIdBytes ||
      unwrapped.payload.empty() || !isBase64(unwrapped.payload)) {
    return std::unexpected(ApiError::invalidRequest(
        "a tool call id of the form sluice:gemini:<id>:<signature> must hold the id the gateway gave, unchanged", param));
  }
  return ChatToolCallId{std::move(unwrapped.reasoning_id), std::move(unwrapped.payload)};
}

std::expected<void, ApiError> stripToolCallSignatures(Json& body) {
  Json* messages = body.is_object() && body.contains("messages") ? &body["messages"] : nullptr;
  if (messages == nullptr || !messages->is_array()) return {};
  const auto plain = [](Json& id, const std::string& param) -> std::expected<void, ApiError> {
    if (!id.is_string()) return {};
    auto parsed = parseToolCallId(id.get_ref<const std::string&>(), param);
    if (!parsed) return std::unexpected(parsed.error());
    id = std::move(parsed->id);
    return {};
  };
  for (size_t i = 0; i < messages->size(); ++i) {
    Json& message = (*messages)[i];
    if (!message.is_object()) continue;
    const std::string param = "messages[" + std::to_string(i) + "]";
    if (message.contains("tool_call_id")) {
      if (auto status = plain(message["tool_call_id"], param + ".tool_call_id"); !status) return status;
    }
    if (!message.contains("tool_calls") || !message["tool_calls"].is_array()) continue;
    Json& calls = message["tool_calls"];
    for (size_t j = 0; j < calls.size(); ++j) {
      if (!calls[j].is_object() || !calls[j].contains("id")) continue;
      if (auto status = plain(calls[j]["id"], param + ".tool_calls[" + std::to_string(j) + "].id"); !status) return status;
    }
  }
  return {};
}

void PendingCallSignature::see(const ContentBlock& block) {
  in_gemini_thinking_ = false;
  if (block.type == ContentBlock::Type::ToolUse) return;  // takeForCall() reads it
  if (block.type == ContentBlock::Type::Thinking && block.signature_wire == catalog::Wire::Gemini) {
    // A later signed block wins: the earlier signature belonged to a part Chat cannot carry.
    in_gemini_thinking_ = true;
    current_ = block.signature;
    if (!current_.empty()) signature_ = current_;
    return;
  }
  signature_.clear();
}

void PendingCallSignature::appendSignature(std::string_view piece) {
  if (!in_gemini_thinking_) return;
  current_ += piece;
  signature_ = current_;
}

std::string PendingCallSignature::takeForCall() {
  in_gemini_thinking_ = false;
  return std::exchange(signature_, std::string());
}

}  // namespace sluice::wire::openai_chat
