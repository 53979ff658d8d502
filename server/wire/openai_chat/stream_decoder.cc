// Provider's Chat stream (data-only SSE ending with `data: [DONE]`) -> neutral stream events.
//
// Chat has no content blocks, so they are synthesised: a Text block opens at the first
// non-empty content delta, a Thinking block at reasoning_content (or `reasoning`) deltas, and a
// ToolUse block for each new tool_calls[].index (id and name come only in its first fragment).
// The open block closes when another kind (or another tool call) starts, or at finish_reason.
// finish_reason arrives one chunk before the usage chunk (choices: []), so the MessageDelta is
// held until usage arrives, [DONE] arrives or the connection ends, so that it carries the usage.
#include "server/wire/openai_chat/codec.h"

#include <map>

#include "server/wire/openai_chat/errors.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/stop_reason.h"
#include "server/wire/openai_chat/usage_json.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_chat {

namespace {

using Events = std::vector<StreamEvent>;

class ChatStreamDecoder final : public StreamDecoder {
 public:
  Events feed(std::string_view bytes) override {
    Events out;
    for (auto& event : sse_.feed(bytes)) takeData(event.data, out);
    return out;
  }

  Events finish() override {
    Events out;
    for (auto& event : sse_.finish()) takeData(event.data, out);
    if (ended_) return out;
    if (stop_reason_) {
      finishMessage(out);  // finish_reason came; only [DONE] is missing: the answer is whole
    } else {
      fail(ApiError::upstreamStreamTruncated("the provider's stream ended before it was complete"), out);
    }
    return out;
  }

 private:
  enum class Open { None, Text, Thinking, Tool };

  struct ToolCall {
    int block_index = 0;
    bool has_arguments = false;
  };

  void takeData(const std::string& data, Events& out) {
    if (ended_) return;  // after [DONE] or an error nothing more is read
    const auto first = data.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return;
    const auto last = data.find_last_not_of(" \t\r\n");
    if (std::string_view(data).substr(first, last - first + 1) == "[DONE]") {
      finishMessage(out);
      return;
    }
    const Json chunk = parseBounded(data);
    if (chunk.is_discarded() || !chunk.is_object()) {
      fail(ApiError::upstreamInvalidResponse("a stream chunk is not a JSON object"), out);
      return;
    }
    if (const Json* error = member(chunk, "error"); error != nullptr && error->is_object()) {
      fail(errorFromObject(*error, statusForErrorObject(*error)), out);
      return;
    }
    takeChunk(chunk, out);
  }

  void takeChunk(const Json& chunk, Events& out) {
    const Json* choices = member(chunk, "choices");
    const bool has_choices = choices != nullptr && choices->is_array() && !choices->empty();
    const Json* usage = member(chunk, "usage");
    const bool has_usage = usage != nullptr && usage->is_object();
    // Azure sends a first chunk with no choices, empty id and prompt_filter_results: skip it.
    if (!has_choices && !has_usage) return;
    start(chunk, out);
    const bool stop_known_before = stop_reason_.has_value();
    if (has_choices) {
      for (const auto& choice : *choices) {
        if (intMember(choice, "index").value_or(0) != 0) continue;  // only the first choice is asked for
        if (const Json* delta = member(choice, "delta")) takeDelta(*delta, out);
        if (const auto finish_reason = optionalString(choice, "finish_reason")) {
          closeOpenBlock(out);
          stop_reason_ = stopReasonFor(*finish_reason, !tools_.empty(), refusal_seen_);
        }
      }
    }
    if (has_usage) {
      usage_ = usageFromJson(*usage);
      usage_reported_ = true;
      // The usage chunk after finish_reason: the answer is complete.
      if (stop_known_before) emitMessageDelta(out);
    }
  }

  void start(const Json& chunk, Events& out) {
    if (started_) return;
    started_ = true;
    StreamEvent event;
    event.type = StreamEvent::Type::MessageStart;
    event.id = optionalString(chunk, "id").value_or("");
    event.model = optionalString(chunk, "model").value_or("");
    id_ = event.id;
    out.push_back(std::move(event));
  }

  void takeDelta(const Json& delta, Events& out) {
    auto reasoning = optionalString(delta, "reasoning_content");
    if (!reasoning || reasoning->empty()) reasoning = optionalString(delta, "reasoning");
    if (reasoning && !reasoning->empty()) appendText(Open::Thinking, *reasoning, out);
    if (const auto content = optionalString(delta, "content"); content && !content->empty()) {
      appendText(Open::Text, *content, out);
    }
    if (const auto refusal = optionalString(delta, "refusal"); refusal && !refusal->empty()) {
      refusal_seen_ = true;
      appendText(Open::Text, *refusal, out);
    }
    if (const Json* tool_calls = member(delta, "tool_calls"); tool_calls != nullptr && tool_calls->is_array()) {
      for (const auto& call : *tool_calls) takeToolCall(call, out);
    }
  }

  void appendText(Open kind, const std::string& text, Events& out) {
    if (open_ != kind) {
      closeOpenBlock(out);
      StreamEvent start;
      start.type = StreamEvent::Type::BlockStart;
      start.index = next_index_++;
      start.block.type = kind == Open::Text ? ContentBlock::Type::Text : ContentBlock::Type::Thinking;
      open_ = kind;
      open_index_ = start.index;
      out.push_back(std::move(start));
    }
    StreamEvent delta;
    delta.type = StreamEvent::Type::BlockDelta;
    delta.index = open_index_;
    delta.delta_kind = kind == Open::Text ? StreamEvent::DeltaKind::Text : StreamEvent::DeltaKind::Thinking;
    delta.delta = text;
    out.push_back(std::move(delta));
  }

  void takeToolCall(const Json& call, Events& out) {
    if (!call.is_object()) return;
    const auto id = optionalString(call, "id");
    const Json* function = member(call, "function");
    // Calls are keyed by their index. Servers that omit it send each call whole: a new id is a
    // new call, and a fragment without id continues the open one.
    int64_t key = 0;
    if (const auto index = intMember(call, "index")) {
      key = *index;
    } else if (id && (open_ != Open::Tool || tool_ids_[open_tool_] != *id)) {
      key = tools_.empty() ? 0 : tools_.rbegin()->first + 1;
    } else {
      key = open_ == Open::Tool ? open_tool_ : 0;
    }
    auto found = tools_.find(key);
    if (found == tools_.end()) {
      closeOpenBlock(out);
      StreamEvent start;
      start.type = StreamEvent::Type::BlockStart;
      start.index = next_index_++;
      start.block.type = ContentBlock::Type::ToolUse;
      // A call without an id gets a deterministic one, so a later turn can answer it.
      start.block.tool_id = id ? *id : "call_" + id_ + "_" + std::to_string(key);
      start.block.tool_name = function ? optionalString(*function, "name").value_or("") : "";
      found = tools_.emplace(key, ToolCall{start.index, false}).first;
      tool_ids_[key] = start.block.tool_id;
      open_ = Open::Tool;
      open_index_ = start.index;
      open_tool_ = key;
      out.push_back(std::move(start));
    }
    // NOTE: a fragment for a call that was already closed (servers interleaving parallel calls)
    // still goes to that call's block index; no known provider interleaves.
    const auto arguments = function ? optionalString(*function, "arguments") : std::nullopt;
    if (!arguments || arguments->empty()) return;
    found->second.has_arguments = true;
    StreamEvent delta;
    delta.type = StreamEvent::Type::BlockDelta;
    delta.index = found->second.block_index;
    delta.delta_kind = StreamEvent::DeltaKind::ToolInputJson;
    delta.delta = *arguments;
    out.push_back(std::move(delta));
  }

  void closeOpenBlock(Events& out) {
    if (open_ == Open::None) return;
    if (open_ == Open::Tool && !tools_[open_tool_].has_arguments) {
      // A call without arguments: say `{}` so every client reads a JSON object.
      StreamEvent delta;
      delta.type = StreamEvent::Type::BlockDelta;
      delta.index = open_index_;
      delta.delta_kind = StreamEvent::DeltaKind::ToolInputJson;
      delta.delta = "{}";
      out.push_back(std::move(delta));
      tools_[open_tool_].has_arguments = true;
    }
    StreamEvent stop;
    stop.type = StreamEvent::Type::BlockStop;
    stop.index = open_index_;
    out.push_back(std::move(stop));
    open_ = Open::None;
  }

  void emitMessageDelta(Events& out) {
    if (delta_sent_) return;
    delta_sent_ = true;
    StreamEvent event;
    event.type = StreamEvent::Type::MessageDelta;
    event.stop_reason = stop_reason_.value_or(stopReasonFor("", !tools_.empty(), refusal_seen_));
    event.usage = usage_;
    event.usage_reported = usage_reported_;
    out.push_back(std::move(event));
  }

  // [DONE], or the connection closed after finish_reason.
  void finishMessage(Events& out) {
    if (!started_) {
      StreamEvent start;
      start.type = StreamEvent::Type::MessageStart;
      out.push_back(std::move(start));
      started_ = true;
    }
    closeOpenBlock(out);
    emitMessageDelta(out);
    StreamEvent stop;
    stop.type = StreamEvent::Type::MessageStop;
    out.push_back(std::move(stop));
    ended_ = true;
  }

  void fail(ApiError error, Events& out) {
    StreamEvent event;
    event.type = StreamEvent::Type::Error;
    event.error = std::move(error);
    out.push_back(std::move(event));
    ended_ = true;
  }

  SseParser sse_;
  bool started_ = false;
  bool ended_ = false;
  std::string id_;
  int next_index_ = 0;
  Open open_ = Open::None;
  int open_index_ = 0;
  int64_t open_tool_ = 0;
  std::map<int64_t, ToolCall> tools_;  // by the provider's tool_calls[].index
  std::map<int64_t, std::string> tool_ids_;
  std::optional<StopReason> stop_reason_;
  bool refusal_seen_ = false;
  Usage usage_;
  bool usage_reported_ = false;
  bool delta_sent_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<ChatStreamDecoder>(); }

}  // namespace sluice::wire::openai_chat
