// makeStreamDecoder for the bedrock-converse wire: ConverseStream's events, as the SSE text
// server/cloud/bedrock_call.cc reframes them into (`event:` the event type, `data:` its payload),
// into neutral StreamEvents. Converse opens no block for text or reasoning (the first delta at an
// index does), sends the stop reason in messageStop and the usage after it in metadata; the
// stream ends with metadata, or, when a stream carries none, at the connection's end after
// messageStop. A stream without messageStop is truncated (502 upstream_stream_truncated).

#include <map>
#include <utility>

#include "server/wire/anthropic/codec.h"
#include "server/wire/bedrock/converse_codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/text/utf8.h"
#include "server/wire/sse.h"

namespace sluice::wire::converse {
namespace {

enum class Opened { Text, ToolUse, Thinking, Redacted };

class ConverseStreamDecoder final : public StreamDecoder {
 public:
  std::vector<StreamEvent> feed(std::string_view bytes) override {
    std::vector<StreamEvent> out;
    for (const SseEvent& event : sse_.feed(bytes)) take(event, out);
    return out;
  }

  std::vector<StreamEvent> finish() override {
    std::vector<StreamEvent> out;
    for (const SseEvent& event : sse_.finish()) take(event, out);
    if (done_) return out;
    if (stopped_) {
      end(Json(), out);  // no metadata: the answer is whole without its usage
    } else {
      fail(ApiError::upstreamStreamTruncated("the Converse stream ended before messageStop"), out);
    }
    return out;
  }

 private:
  void fail(ApiError error, std::vector<StreamEvent>& out) {
    StreamEvent event;
    event.type = StreamEvent::Type::Error;
    event.error = std::move(error);
    out.push_back(std::move(event));
    done_ = true;
  }

  void start(std::vector<StreamEvent>& out) {
    if (started_) return;
    started_ = true;
    StreamEvent event;
    event.type = StreamEvent::Type::MessageStart;
    out.push_back(std::move(event));
  }

  // Opens the block at `index` as `kind` unless it is open; false when it is open as another kind.
  bool open(int index, Opened kind, ContentBlock block, std::vector<StreamEvent>& out) {
    if (const auto found = open_.find(index); found != open_.end()) return found->second == kind;
    start(out);
    open_[index] = kind;
    StreamEvent event;
    event.type = StreamEvent::Type::BlockStart;
    event.index = index;
    event.block = std::move(block);
    out.push_back(std::move(event));
    return true;
  }

  void delta(int index, StreamEvent::DeltaKind kind, std::string text, std::vector<StreamEvent>& out) {
    StreamEvent event;
    event.type = StreamEvent::Type::BlockDelta;
    event.index = index;
    event.delta_kind = kind;
    event.delta = std::move(text);
    out.push_back(std::move(event));
  }

  void end(const Json& metadata, std::vector<StreamEvent>& out) {
    for (const auto& [index, kind] : open_) {
      (void)kind;
      StreamEvent stop;
      stop.type = StreamEvent::Type::BlockStop;
      stop.index = index;
      out.push_back(std::move(stop));
    }
    open_.clear();
    StreamEvent event;
    event.type = StreamEvent::Type::MessageDelta;
    event.stop_reason = stop_reason_;
    event.stop_sequence = stop_sequence_;
    if (const Json* usage = metadata.is_object() ? objectMember(metadata, "usage") : nullptr) {
      event.usage = usageOf(*usage);
      event.usage_reported = true;
    }
    out.push_back(std::move(event));
    StreamEvent stop;
    stop.type = StreamEvent::Type::MessageStop;
    out.push_back(std::move(stop));
    done_ = true;
  }

  void contentDelta(int index, const Json& change, std::vector<StreamEvent>& out) {
    if (const auto text = optionalString(change, "text")) {
      if (!open(index, Opened::Text, ContentBlock::ofText(""), out)) return mismatch(index, out);
      delta(index, StreamEvent::DeltaKind::Text, *text, out);
    } else if (const Json* use = objectMember(change, "toolUse")) {
      if (open_.find(index) == open_.end() || open_[index] != Opened::ToolUse) return mismatch(index, out);
      delta(index, StreamEvent::DeltaKind::ToolInputJson, stringMember(*use, "input"), out);
    } else if (const Json* reasoning = objectMember(change, "reasoningContent")) {
      if (const auto redacted = optionalString(*reasoning, "redactedContent")) {
        ContentBlock block;
        block.type = ContentBlock::Type::RedactedThinking;
        block.data = *redacted;
        block.signature_wire = catalog::Wire::BedrockConverse;
        if (!open(index, Opened::Redacted, std::move(block), out)) return mismatch(index, out);
        return;
      }
      ContentBlock block;
      block.type = ContentBlock::Type::Thinking;
      block.signature_wire = catalog::Wire::BedrockConverse;
      if (!open(index, Opened::Thinking, std::move(block), out)) return mismatch(index, out);
      if (const auto text = optionalString(*reasoning, "text")) delta(index, StreamEvent::DeltaKind::Thinking, *text, out);
      if (const auto signature = optionalString(*reasoning, "signature")) {
        delta(index, StreamEvent::DeltaKind::Signature, *signature, out);
      }
    }
    // Other deltas (citations, images): not in the IR.
  }

  void mismatch(int index, std::vector<StreamEvent>& out) {
    fail(ApiError::upstreamInvalidResponse("Converse stream: a delta of another kind for content block " +
                                           std::to_string(index)),
         out);
  }

  void take(const SseEvent& sse, std::vector<StreamEvent>& out) {
    if (done_) return;
    const Json payload = parseBounded(sse.data);
    if (sse.event == "error") {
      // An exception mid-answer, as an Anthropic error event (bedrock_call.cc): its type says what
      // it was (rate_limit_error, overloaded_error, api_error, ...).
      ApiError error = anthropic::decodeError(500, sse.data, std::nullopt);
      if (error.key == "rate_limit_error") error.status = 429;
      if (error.key == "overloaded_error") error.status = 503;
      if (error.key == "invalid_request_error") error.status = 400;
      fail(std::move(error), out);
      return;
    }
    if (!payload.is_object()) {
      // The event's name as the provider sent it, bounded and made valid UTF-8 (it goes into JSON).
      fail(ApiError::upstreamInvalidResponse("Converse stream event " + text::repairUtf8(sse.event, 40) +
                                             " is not a JSON object"),
           out);
      return;
    }
    const int index = static_cast<int>(intMember(payload, "contentBlockIndex").value_or(0));
    if (index < 0 || index > 10'000) {
      fail(ApiError::upstreamInvalidResponse("Converse stream: content block index out of range"), out);
      return;
    }
    if (sse.event == "messageStart") {
      start(out);
    } else if (sse.event == "contentBlockStart") {
      const Json* start_of = objectMember(payload, "start");
      if (const Json* use = start_of != nullptr ? objectMember(*start_of, "toolUse") : nullptr) {
        ContentBlock block;
        block.type = ContentBlock::Type::ToolUse;
        block.tool_id = stringMember(*use, "toolUseId");
        block.tool_name = stringMember(*use, "name");
        if (!open(index, Opened::ToolUse, std::move(block), out)) mismatch(index, out);
      }
    } else if (sse.event == "contentBlockDelta") {
      if (const Json* d = objectMember(payload, "delta")) contentDelta(index, *d, out);
    } else if (sse.event == "contentBlockStop") {
      if (open_.erase(index) > 0) {
        StreamEvent stop;
        stop.type = StreamEvent::Type::BlockStop;
        stop.index = index;
        out.push_back(std::move(stop));
      }
    } else if (sse.event == "messageStop") {
      start(out);
      stopped_ = true;
      stop_reason_ = stopReasonOf(stringMember(payload, "stopReason"));
      if (const Json* fields = objectMember(payload, "additionalModelResponseFields")) {
        stop_sequence_ = stringMember(*fields, "stop_sequence");
      }
    } else if (sse.event == "metadata") {
      if (!stopped_) {
        fail(ApiError::upstreamInvalidResponse("Converse stream: metadata before messageStop"), out);
        return;
      }
      end(payload, out);
    }
  }

  SseParser sse_;
  std::map<int, Opened> open_;
  bool started_ = false;
  bool stopped_ = false;
  bool done_ = false;
  StopReason stop_reason_ = StopReason::EndTurn;
  std::string stop_sequence_;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<ConverseStreamDecoder>(); }

}  // namespace sluice::wire::converse
