#include "server/wire/gemini/request_contents.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "server/wire/json_access.h"
#include "server/wire/gemini/media.h"
#include "server/wire/gemini/tool_ids.h"

namespace sluice::wire::gemini {
namespace {

using catalog::Wire;

constexpr const char* kSignatureKey = "thoughtSignature";

// Collects one turn's parts. A Gemini thought signature read from a Thinking block waits for the
// next part of the turn and rides on it; one with no part after it goes on an empty text part,
// which is how Gemini itself sends a trailing signature.
class TurnParts {
 public:
  void add(Json part) {
    if (pending_signature_) {
      if (member(part, kSignatureKey) == nullptr) {
        part[kSignatureKey] = std::move(*pending_signature_);
      } else {
        parts_.push_back(Json{{"text", ""}, {kSignatureKey, std::move(*pending_signature_)}});
      }
      pending_signature_.reset();
    }
    parts_.push_back(std::move(part));
  }

  void addSignature(std::string signature) {
    if (pending_signature_) parts_.push_back(Json{{"text", ""}, {kSignatureKey, std::move(*pending_signature_)}});
    pending_signature_ = std::move(signature);
  }

  Json take() {
    if (pending_signature_) {
      parts_.push_back(Json{{"text", ""}, {kSignatureKey, std::move(*pending_signature_)}});
      pending_signature_.reset();
    }
    return std::exchange(parts_, Json::array());
  }

 private:
  Json parts_ = Json::array();
  std::optional<std::string> pending_signature_;
};

std::string joinedText(const std::vector<ContentBlock>& blocks) {
  std::string text;
  bool first = true;
  for (const ContentBlock& block : blocks) {
    if (block.type != ContentBlock::Type::Text) continue;
    if (!first) text += '\n';
    text += block.text;
    first = false;
  }
  return text;
}

// Gemini 3 refuses a history whose function calls lack their thought signature. A model turn
// with calls and no Gemini signature at all came from another model or through a client that
// drops signatures: its first call gets the documented validator-skipping signature.
// NOTE: a turn holding any real signature is left alone, as Gemini sent it.
void markUnsignedCalls(Json& parts) {
  Json* first_call = nullptr;
  for (Json& part : parts) {
    if (member(part, "thoughtSignature") != nullptr) return;
    if (first_call == nullptr && member(part, "functionCall") != nullptr) first_call = &part;
  }
  if (first_call != nullptr) (*first_call)["thoughtSignature"] = kSkipSignatureValidator;
}

}  // namespace

std::expected<Json, ApiError> encodeContents(const std::vector<Message>& messages) {
  Json contents = Json::array();
  std::map<std::string, std::string> tool_names;  // tool id -> function name, from earlier calls
  // Consecutive messages of one role form one Gemini turn, built by one TurnParts so a signature
  // that ends one message still rides on the first part of the next (a client may split a
  // reasoning item and its call into two messages).
  TurnParts parts;
  std::optional<Role> turn_role;
  const auto endTurn = [&] {
    Json turn_parts = parts.take();
    if (!turn_role || turn_parts.empty()) return;
    const char* role = *turn_role == Role::Assistant ? "model" : "user";
    // A turn left empty (only another wire's thinking, say) vanished: its neighbours meet here.
    if (!contents.empty() && contents.back()["role"] == role) {
      for (Json& part : turn_parts) contents.back()["parts"].push_back(std::move(part));
    } else {
      contents.push_back(Json{{"role", role}, {"parts", std::move(turn_parts)}});
    }
  };
  for (size_t m = 0; m < messages.size(); ++m) {
    const Message& message = messages[m];
    if (turn_role && *turn_role != message.role) endTurn();
    turn_role = message.role;
    const bool model = message.role == Role::Assistant;
    for (size_t b = 0; b < message.content.size(); ++b) {
      const ContentBlock& block = message.content[b];
      switch (block.type) {
        case ContentBlock::Type::Text:
          if (!block.text.empty()) parts.add(Json{{"text", block.text}});
          break;
        case ContentBlock::Type::Image:
          parts.add(imagePart(block.image));
          break;
        case ContentBlock::Type::ToolUse: {
          tool_names[block.tool_id] = block.tool_name;
          Json call{{"name", block.tool_name},
                    {"args", block.tool_input.is_object() ? block.tool_input : Json::object()}};
          if (sendsToolCallId(block.tool_id)) call["id"] = block.tool_id;
          parts.add(Json{{"functionCall", std::move(call)}});
          break;
        }
        case ContentBlock::Type::ToolResult: {
          const auto name = tool_names.find(block.tool_use_id);
          if (name == tool_names.end()) {
            return std::unexpected(ApiError::unsupportedField("tool result for tool_use_id '" + block.tool_use_id +
                    "' matches no earlier tool call; gemini needs the function name", "messages[" + std::to_string(m) + "].content[" + std::to_string(b) + "].tool_use_id"));
          }
          Json response{{block.is_error ? "error" : "output", joinedText(block.result)}};
          Json function_response{{"name", name->second}, {"response", std::move(response)}};
          if (sendsToolCallId(block.tool_use_id)) function_response["id"] = block.tool_use_id;
          parts.add(Json{{"functionResponse", std::move(function_response)}});
          // NOTE: images a tool returned follow its functionResponse as ordinary parts.
          for (const ContentBlock& item : block.result) {
            if (item.type == ContentBlock::Type::Image) parts.add(imagePart(item.image));
          }
          break;
        }
        case ContentBlock::Type::Thinking:
          // Thought text is never resent; only Gemini's own signature goes back. Thinking from
          // other wires means nothing to Gemini and is dropped.
          if (model && block.signature_wire == Wire::Gemini && !block.signature.empty()) {
            parts.addSignature(block.signature);
          }
          break;
        case ContentBlock::Type::RedactedThinking:
          break;
        case ContentBlock::Type::Opaque:
          if (block.raw_wire == Wire::Gemini && block.raw.is_object() && !block.raw.empty()) {
            parts.add(block.raw);
          } else if (block.raw_wire == Wire::Anthropic) {
            // NOTE: other wires' opaque blocks (server tool calls and results) are dropped; a
            // document's source is the one thing Gemini can take.
            if (auto document = documentPart(block.raw)) parts.add(std::move(*document));
          }
          break;
      }
    }
  }
  endTurn();
  if (contents.empty()) return std::unexpected(ApiError::unsupportedField("gemini needs at least one message with content", "messages"));
  for (Json& turn : contents) {
    if (turn["role"] == "model") markUnsignedCalls(turn["parts"]);
  }
  return contents;
}

}  // namespace sluice::wire::gemini
