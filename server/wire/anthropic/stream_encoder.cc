// IR StreamEvents -> the SSE stream an Anthropic client (Claude Code, the SDK) reads, one event's
// bytes at a time.

#include <algorithm>
#include <map>
#include <set>

#include "server/text/utf8.h"
#include "server/wire/anthropic/codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/anthropic/message_id.h"
#include "server/wire/signature_envelope.h"
#include "server/wire/anthropic/stop_reason.h"
#include "server/wire/anthropic/usage_counts.h"
#include "server/wire/sse.h"

namespace sluice::wire::anthropic {

namespace {

using Type = StreamEvent::Type;
using DeltaKind = StreamEvent::DeltaKind;

std::string frame(std::string_view name, const Json& data) { return sseFrame(name, dumpJsonText(data)); }

class Encoder final : public StreamEncoder {
 public:
  explicit Encoder(ResponseContext context) : context_(std::move(context)) {}

  std::string encode(const StreamEvent& event) override {
    if (state_ == State::Done) return {};  // nothing follows message_stop or an error
    switch (event.type) {
      case Type::MessageStart:
        if (event.usage_reported) takeUsage(event.usage);
        return start(event.id);
      case Type::BlockStart: return blockStart(event.index, event.block);
      case Type::BlockDelta: return blockDelta(event);
      case Type::BlockStop: return blockStop(event.index);
      case Type::MessageDelta: {
        if (event.stop_reason) stop_reason_ = event.stop_reason;
        if (!event.stop_sequence.empty()) stop_sequence_ = event.stop_sequence;
        if (event.usage_reported) takeUsage(event.usage);
        std::string out = start({});
        out += closeAll();
        return out + messageDelta();
      }
      case Type::MessageStop: return end();
      case Type::Ping: return frame("ping", Json{{"type", "ping"}});
      case Type::Error: {
        state_ = State::Done;
        ApiError error = event.error;
        error.message = text::repairUtf8(error.message);  // rendering must not fail on a provider's bytes
        return sseFrame("error", renderError(catalog::Wire::Anthropic, error, context_.request_id));
      }
    }
    return {};
  }

  std::string finish() override {
    if (state_ == State::Done) return {};
    return end();
  }

 private:
  enum class State { Fresh, Streaming, Done };

  struct OpenBlock {
    int client_index = 0;
    ContentBlock::Type type = ContentBlock::Type::Text;
    std::optional<catalog::Wire> signature_wire;
    std::string reasoning_id;
    bool signature_sent = false;
  };

  // Usage is cumulative; a report without the input side (some wires give it only at the
  // start) keeps the input counts already known.
  void takeUsage(const Usage& usage) {
    if (usage.input_tokens > 0) {
      usage_.input_tokens = usage.input_tokens;
      usage_.cache_read_tokens = usage.cache_read_tokens;
      usage_.cache_write_tokens = usage.cache_write_tokens;
    }
    usage_.output_tokens = usage.output_tokens;
    usage_.reasoning_tokens = usage.reasoning_tokens;
  }

  // message_start, once, before anything else the client reads. `id` may be empty.
  std::string start(const std::string& id) {
    if (state_ != State::Fresh) return {};
    state_ = State::Streaming;
    Json usage = usageToWire(usage_);
    Json message = Json::object();
    message["id"] = messageId(id, context_.request_id);
    message["type"] = "message";
    message["role"] = "assistant";
    message["model"] = context_.model;
    message["content"] = Json::array();
    message["stop_reason"] = nullptr;
    message["stop_sequence"] = nullptr;
    message["usage"] = std::move(usage);
    return frame("message_start", Json{{"type", "message_start"}, {"message", std::move(message)}});
  }

  std::string blockStart(int index, const ContentBlock& block) {
    std::string out = start({});
    if (open_.contains(index) || dropped_.contains(index)) return out;
    Json payload;
    switch (block.type) {
      case ContentBlock::Type::Text: payload = Json{{"type", "text"}, {"text", ""}}; break;
      case ContentBlock::Type::ToolUse:
        saw_tool_use_ = true;
        payload = Json{{"type", "tool_use"}, {"id", block.tool_id}, {"name", block.tool_name}, {"input", Json::object()}};
        break;
      case ContentBlock::Type::Thinking: payload = Json{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}; break;
      case ContentBlock::Type::RedactedThinking:
        payload = Json{{"type", "redacted_thinking"}, {"data", wrapSignature(catalog::Wire::Anthropic, block.signature_wire, block.reasoning_id, block.data)}};
        break;
      case ContentBlock::Type::Opaque:
        if (block.raw_wire == catalog::Wire::Anthropic && block.raw.is_object()) payload = block.raw;
        break;
      default: break;
    }
    if (payload.is_null()) {
      // NOTE: images, tool results and other wires' opaque blocks have no streamed Anthropic
      // form; the block and its deltas are left out.
      dropped_.insert(index);
      return out;
    }
    OpenBlock open{next_index_++, block.type, block.signature_wire, block.reasoning_id, false};
    open_[index] = open;
    out += frame("content_block_start",
                 Json{{"type", "content_block_start"}, {"index", open.client_index}, {"content_block", std::move(payload)}});
    // A start block that already holds content (some decoders send it whole) goes out as deltas.
    if (block.type == ContentBlock::Type::Text && !block.text.empty()) out += deltaFor(index, DeltaKind::Text, block.text);
    if (block.type == ContentBlock::Type::ToolUse && block.tool_input.is_object() && !block.tool_input.empty()) {
      out += deltaFor(index, DeltaKind::ToolInputJson, dumpJsonText(block.tool_input));
    }
    if (block.type == ContentBlock::Type::Thinking) {
      if (!block.text.empty()) out += deltaFor(index, DeltaKind::Thinking, block.text);
      if (!block.signature.empty()) out += deltaFor(index, DeltaKind::Signature, block.signature);
    }
    return out;
  }

  std::string blockDelta(const StreamEvent& event) {
    if (dropped_.contains(event.index)) return {};
    std::string out;
    if (!open_.contains(event.index)) {
      // A delta without its start: text and thinking can still be shown.
      ContentBlock implied;
      if (event.delta_kind == DeltaKind::Text) {
        implied.type = ContentBlock::Type::Text;
      } else if (event.delta_kind == DeltaKind::Thinking) {
        implied.type = ContentBlock::Type::Thinking;
      } else {
        return {};
      }
      out += blockStart(event.index, implied);
    }
    return out + deltaFor(event.index, event.delta_kind, event.delta);
  }

  std::string deltaFor(int index, DeltaKind kind, const std::string& text) {
    OpenBlock& open = open_.at(index);
    Json delta = Json::object();
    switch (kind) {
      case DeltaKind::Text: delta = Json{{"type", "text_delta"}, {"text", text}}; break;
      case DeltaKind::ToolInputJson: delta = Json{{"type", "input_json_delta"}, {"partial_json", text}}; break;
      case DeltaKind::Thinking: delta = Json{{"type", "thinking_delta"}, {"thinking", text}}; break;
      case DeltaKind::Signature:
        // Only the first piece carries the envelope of a foreign signature.
        delta = Json{{"type", "signature_delta"},
                     {"signature", open.signature_sent ? text : wrapSignature(catalog::Wire::Anthropic, open.signature_wire, open.reasoning_id, text)}};
        open.signature_sent = true;
        break;
    }
    return frame("content_block_delta",
                 Json{{"type", "content_block_delta"}, {"index", open.client_index}, {"delta", std::move(delta)}});
  }

  std::string blockStop(int index) {
    if (dropped_.erase(index) > 0) return {};
    const auto open = open_.find(index);
    if (open == open_.end()) return {};
    const int client_index = open->second.client_index;
    std::string out;
    // As in the whole answer: another wire's unsigned thinking still ends with its envelope, so
    // every thinking block the client holds is signed and replays to the wire it came from.
    if (open->second.type == ContentBlock::Type::Thinking && !open->second.signature_sent &&
        open->second.signature_wire && *open->second.signature_wire != catalog::Wire::Anthropic) {
      out = deltaFor(index, DeltaKind::Signature, std::string());
    }
    open_.erase(open);
    return out + frame("content_block_stop", Json{{"type", "content_block_stop"}, {"index", client_index}});
  }

  // Blocks still open when the message ends are closed in the order they were opened.
  std::string closeAll() {
    std::vector<std::pair<int, int>> order;  // client index, IR index
    for (const auto& [index, open] : open_) order.emplace_back(open.client_index, index);
    std::sort(order.begin(), order.end());
    std::string out;
    for (const auto& [client_index, index] : order) out += blockStop(index);
    dropped_.clear();
    return out;
  }

  // Every message_delta carries the best-known stop reason and the cumulative usage, so a later
  // usage-only delta never erases the stop reason a client already read.
  std::string messageDelta() {
    delta_sent_ = true;
    const StopReason reason = stop_reason_.value_or(saw_tool_use_ ? StopReason::ToolUse : StopReason::EndTurn);
    Json delta{{"stop_reason", stopReasonToWire(reason)},
               {"stop_sequence", stop_sequence_.empty() ? Json(nullptr) : Json(stop_sequence_)}};
    return frame("message_delta", Json{{"type", "message_delta"}, {"delta", std::move(delta)}, {"usage", usageToWire(usage_)}});
  }

  std::string end() {
    std::string out = start({});
    out += closeAll();
    if (!delta_sent_) out += messageDelta();
    state_ = State::Done;
    return out + frame("message_stop", Json{{"type", "message_stop"}});
  }

  ResponseContext context_;
  State state_ = State::Fresh;
  std::map<int, OpenBlock> open_;  // by IR index
  std::set<int> dropped_;          // IR indexes the client is not shown
  int next_index_ = 0;             // the client's indexes are 0, 1, 2... in start order
  Usage usage_;
  std::optional<StopReason> stop_reason_;
  std::string stop_sequence_;
  bool delta_sent_ = false;
  bool saw_tool_use_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context) {
  return std::make_unique<Encoder>(context);
}

}  // namespace sluice::wire::anthropic
