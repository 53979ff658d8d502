// An Anthropic provider's SSE stream -> IR StreamEvents, event by event.

#include <map>

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/anthropic/content_block.h"
#include "server/wire/anthropic/error_body.h"
#include "server/wire/json_access.h"
#include "server/wire/anthropic/stop_reason.h"
#include "server/wire/anthropic/usage_counts.h"
#include "server/wire/sse.h"

namespace sluice::wire::anthropic {

namespace {

using Type = StreamEvent::Type;
using DeltaKind = StreamEvent::DeltaKind;

StreamEvent delta(int index, DeltaKind kind, std::string text) {
  StreamEvent event;
  event.type = Type::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::move(text);
  return event;
}

StreamEvent simple(Type type) {
  StreamEvent event;
  event.type = type;
  return event;
}

StreamEvent failure(ApiError error) {
  StreamEvent event;
  event.type = Type::Error;
  event.error = std::move(error);
  return event;
}

class Decoder final : public StreamDecoder {
 public:
  std::vector<StreamEvent> feed(std::string_view bytes) override {
    std::vector<StreamEvent> out;
    if (done_) return out;
    for (const SseEvent& event : parser_.feed(bytes)) {
      take(event, out);
      if (done_) break;  // nothing after the terminal event counts
    }
    return out;
  }

  std::vector<StreamEvent> finish() override {
    std::vector<StreamEvent> out;
    if (done_) return out;
    for (const SseEvent& event : parser_.finish()) {
      take(event, out);
      if (done_) return out;
    }
    done_ = true;
    out.push_back(failure(ApiError::upstreamStreamTruncated("the provider's stream ended before message_stop")));
    return out;
  }

 private:
  struct OpenBlock {
    ContentBlock::Type type = ContentBlock::Type::Text;
    bool input_seen = false;  // a non-empty input_json_delta arrived
  };

  void take(const SseEvent& sse, std::vector<StreamEvent>& out) {
    const Json data = parseBounded(sse.data);
    if (data.is_discarded() || !data.is_object()) {
      done_ = true;
      out.push_back(failure(ApiError::upstreamInvalidResponse("the provider's stream carried an event that is not a JSON object")));
      return;
    }
    // The JSON's own type is authoritative; the `event:` line is the fallback.
    const std::string type = stringMember(data, "type", sse.event);
    if (type == "message_start") {
      messageStart(data, out);
    } else if (type == "content_block_start") {
      blockStart(data, out);
    } else if (type == "content_block_delta") {
      blockDelta(data, out);
    } else if (type == "content_block_stop") {
      blockStop(data, out);
    } else if (type == "message_delta") {
      messageDelta(data, out);
    } else if (type == "message_stop") {
      done_ = true;
      out.push_back(simple(Type::MessageStop));
    } else if (type == "ping") {
      out.push_back(simple(Type::Ping));
    } else if (type == "error") {
      done_ = true;
      const Json* inner = member(data, "error");
      const int status = statusForErrorType(inner ? stringMember(*inner, "type") : "");
      out.push_back(failure(errorFromBody(data, status, "api_error")));
    }
    // Event types added later are ignored, as the API asks.
  }

  void messageStart(const Json& data, std::vector<StreamEvent>& out) {
    const Json* message = member(data, "message");
    StreamEvent event;
    event.type = Type::MessageStart;
    if (message != nullptr) {
      event.id = stringMember(*message, "id");
      event.model = stringMember(*message, "model");
      if (const Json* usage = member(*message, "usage")) usage_reported_ = usage_.merge(*usage) || usage_reported_;
    }
    event.usage = usage_.toNeutral();
    event.usage_reported = usage_reported_;
    out.push_back(std::move(event));
  }

  void blockStart(const Json& data, std::vector<StreamEvent>& out) {
    const int index = static_cast<int>(intMember(data, "index").value_or(0));
    const Json* payload = member(data, "content_block");
    if (payload == nullptr || !payload->is_object()) return;
    auto decoded = decodeBlock(*payload, "content_block", Strictness::Lenient);
    if (!decoded) return;
    ContentBlock block = std::move(*decoded);
    // The start payload is the empty block; whatever it already holds goes out as deltas so a
    // consumer only has to concatenate deltas.
    std::vector<StreamEvent> initial;
    switch (block.type) {
      case ContentBlock::Type::Text:
        if (!block.text.empty()) initial.push_back(delta(index, DeltaKind::Text, std::move(block.text)));
        block.text.clear();
        break;
      case ContentBlock::Type::ToolUse:
        if (!block.tool_input.empty()) initial.push_back(delta(index, DeltaKind::ToolInputJson, dumpJsonText(block.tool_input)));
        block.tool_input = Json::object();
        break;
      case ContentBlock::Type::Thinking:
        if (!block.text.empty()) initial.push_back(delta(index, DeltaKind::Thinking, std::move(block.text)));
        if (!block.signature.empty()) initial.push_back(delta(index, DeltaKind::Signature, std::move(block.signature)));
        block.text.clear();
        block.signature.clear();
        block.signature_wire = catalog::Wire::Anthropic;
        break;
      default:
        break;
    }
    blocks_[index] = OpenBlock{block.type, !initial.empty()};
    StreamEvent event;
    event.type = Type::BlockStart;
    event.index = index;
    event.block = std::move(block);
    out.push_back(std::move(event));
    for (StreamEvent& step : initial) out.push_back(std::move(step));
  }

  void blockDelta(const Json& data, std::vector<StreamEvent>& out) {
    const int index = static_cast<int>(intMember(data, "index").value_or(0));
    const Json* payload = member(data, "delta");
    if (payload == nullptr) return;
    const std::string type = stringMember(*payload, "type");
    DeltaKind kind;
    const char* field;
    if (type == "text_delta") {
      kind = DeltaKind::Text, field = "text";
    } else if (type == "input_json_delta") {
      kind = DeltaKind::ToolInputJson, field = "partial_json";
    } else if (type == "thinking_delta") {
      kind = DeltaKind::Thinking, field = "thinking";
    } else if (type == "signature_delta") {
      kind = DeltaKind::Signature, field = "signature";
    } else {
      return;  // NOTE: citations_delta and later delta types have no IR form
    }
    std::string text = stringMember(*payload, field);
    if (text.empty()) return;  // the empty input_json / thinking deltas carry nothing
    if (kind == DeltaKind::ToolInputJson) blocks_[index].input_seen = true;
    out.push_back(delta(index, kind, std::move(text)));
  }

  void blockStop(const Json& data, std::vector<StreamEvent>& out) {
    const int index = static_cast<int>(intMember(data, "index").value_or(0));
    const auto open = blocks_.find(index);
    if (open != blocks_.end()) {
      // A call without arguments streams a single empty fragment: its input is {}.
      if (open->second.type == ContentBlock::Type::ToolUse && !open->second.input_seen) {
        out.push_back(delta(index, DeltaKind::ToolInputJson, "{}"));
      }
      blocks_.erase(open);
    }
    StreamEvent event;
    event.type = Type::BlockStop;
    event.index = index;
    out.push_back(std::move(event));
  }

  void messageDelta(const Json& data, std::vector<StreamEvent>& out) {
    StreamEvent event;
    event.type = Type::MessageDelta;
    if (const Json* payload = member(data, "delta")) {
      if (const Json* stop = member(*payload, "stop_reason"); stop != nullptr && stop->is_string()) {
        event.stop_reason = stopReasonFromWire(stop->get<std::string>());
      }
      event.stop_sequence = stringMember(*payload, "stop_sequence");
    }
    // Cumulative and authoritative: recent streams repeat input and cache counts here, and they
    // may differ from message_start's.
    if (const Json* usage = member(data, "usage")) usage_reported_ = usage_.merge(*usage) || usage_reported_;
    event.usage = usage_.toNeutral();
    event.usage_reported = usage_reported_;
    out.push_back(std::move(event));
  }

  SseParser parser_;
  bool done_ = false;  // message_stop, an error or finish() seen
  UsageCounts usage_;
  bool usage_reported_ = false;
  std::map<int, OpenBlock> blocks_;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<Decoder>(); }

}  // namespace sluice::wire::anthropic
