// Neutral stream events -> the Chat stream a client reads (data-only SSE, `data: [DONE]` last).
//
// Order written: a first chunk with delta {role:"assistant", content:""}; content,
// reasoning_content and tool_calls deltas as they come; a finish_reason chunk with delta {};
// a usage chunk with choices []; `data: [DONE]`. Tool calls are numbered 0, 1, 2... in the order
// they start (the client's tool_calls[].index), whatever their IR block index. A call's id goes
// out with its first delta, so the Gemini signature it carries (tool_call_id.h) must be known by
// then: the Gemini decoder puts a call's signature block before the call's start. An error becomes a
// `data: {"error":{...}}` chunk and then `data: [DONE]`, so the stream still ends cleanly.
#include "server/wire/openai_chat/codec.h"

#include <algorithm>
#include <map>

#include "server/wire/openai_chat/completion_id.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/stop_reason.h"
#include "server/wire/openai_chat/tool_call_id.h"
#include "server/wire/openai_chat/usage_json.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_chat {

namespace {

Usage latest(const Usage& a, const Usage& b) {
  // Usage is cumulative; the larger count per field is the later one (a MessageStart may carry
  // only the input side, a MessageDelta only the output side).
  return Usage{std::max(a.input_tokens, b.input_tokens), std::max(a.output_tokens, b.output_tokens),
               std::max(a.cache_read_tokens, b.cache_read_tokens), std::max(a.cache_write_tokens, b.cache_write_tokens),
               std::max(a.reasoning_tokens, b.reasoning_tokens)};
}

class ChatStreamEncoder final : public StreamEncoder {
 public:
  explicit ChatStreamEncoder(ResponseContext context) : context_(std::move(context)) {}

  std::string encode(const StreamEvent& event) override {
    if (done_) return {};
    std::string out;
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        if (event.usage_reported) noteUsage(event.usage);
        begin(event.id, event.model, out);
        break;
      case StreamEvent::Type::BlockStart: begin({}, {}, out); startBlock(event, out); break;
      case StreamEvent::Type::BlockDelta: begin({}, {}, out); delta(event, out); break;
      case StreamEvent::Type::BlockStop: stopBlock(event.index, out); break;
      case StreamEvent::Type::MessageDelta:
        begin({}, {}, out);
        if (event.usage_reported) noteUsage(event.usage);
        if (event.stop_reason) stop_reason_ = *event.stop_reason;
        writeFinish(out);
        break;
      case StreamEvent::Type::MessageStop: end(out); break;
      case StreamEvent::Type::Ping: break;
      case StreamEvent::Type::Error:
        out += sseFrame("", renderError(catalog::Wire::OpenAIChat, event.error, context_.request_id));
        out += sseFrame("", "[DONE]");
        done_ = true;
        break;
    }
    return out;
  }

  std::string finish() override {
    std::string out;
    if (!done_) end(out);
    return out;
  }

 private:
  struct Block {
    ContentBlock::Type type = ContentBlock::Type::Text;
    int tool_index = -1;
    bool has_arguments = false;
  };

  Json chunk(Json delta, Json finish_reason) const {
    Json body = {{"id", id_}, {"object", "chat.completion.chunk"}, {"created", context_.created}, {"model", model_}};
    body["choices"] = Json::array(
        {Json{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", std::move(finish_reason)}}});
    return body;
  }

  void write(const Json& body, std::string& out) const { out += sseFrame("", dumpJsonText(body)); }

  void begin(const std::string& provider_id, const std::string& provider_model, std::string& out) {
    if (started_) return;
    started_ = true;
    id_ = completionId(context_, provider_id);
    model_ = context_.model.empty() ? provider_model : context_.model;
    write(chunk(Json{{"role", "assistant"}, {"content", ""}}, nullptr), out);
  }

  void startBlock(const StreamEvent& event, std::string& out) {
    Block block;
    block.type = event.block.type;
    call_signature_.see(event.block);
    if (block.type == ContentBlock::Type::ToolUse) {
      block.tool_index = next_tool_++;
      Json call = {{"index", block.tool_index},
                   {"id", toolCallIdFor(event.block.tool_id, call_signature_.takeForCall())},
                   {"type", "function"},
                   {"function", {{"name", event.block.tool_name}, {"arguments", ""}}}};
      write(chunk(Json{{"tool_calls", Json::array({std::move(call)})}}, nullptr), out);
    }
    blocks_[event.index] = block;
  }

  void delta(const StreamEvent& event, std::string& out) {
    if (event.delta.empty()) return;
    switch (event.delta_kind) {
      case StreamEvent::DeltaKind::Text: write(chunk(Json{{"content", event.delta}}, nullptr), out); break;
      case StreamEvent::DeltaKind::Thinking:
        write(chunk(Json{{"reasoning_content", event.delta}}, nullptr), out);
        break;
      case StreamEvent::DeltaKind::Signature:
        // Only a Gemini signature that ends up before a call is shown: in that call's id.
        call_signature_.appendSignature(event.delta);
        break;
      case StreamEvent::DeltaKind::ToolInputJson: {
        const auto found = blocks_.find(event.index);
        if (found == blocks_.end() || found->second.tool_index < 0) break;
        found->second.has_arguments = true;
        writeArguments(found->second.tool_index, event.delta, out);
        break;
      }
    }
  }

  void writeArguments(int tool_index, const std::string& fragment, std::string& out) const {
    Json call = {{"index", tool_index}, {"function", {{"arguments", fragment}}}};
    write(chunk(Json{{"tool_calls", Json::array({std::move(call)})}}, nullptr), out);
  }

  void stopBlock(int index, std::string& out) {
    const auto found = blocks_.find(index);
    if (found == blocks_.end()) return;
    // A call with no arguments: clients parse the concatenated fragments, so send `{}`.
    if (found->second.tool_index >= 0 && !found->second.has_arguments) {
      writeArguments(found->second.tool_index, "{}", out);
      found->second.has_arguments = true;
    }
  }

  void noteUsage(const Usage& usage) {
    usage_ = latest(usage_, usage);
    usage_reported_ = true;
  }

  void writeFinish(std::string& out) {
    if (finish_sent_) return;
    finish_sent_ = true;
    for (auto& [index, block] : blocks_) stopBlock(index, out);
    write(chunk(Json::object(), finishReasonFor(stop_reason_)), out);
  }

  // The answer is over: finish_reason (if no MessageDelta said it), usage, [DONE].
  void end(std::string& out) {
    if (started_) {
      writeFinish(out);
      if (usage_reported_ && context_.include_usage) {
        Json body = {{"id", id_}, {"object", "chat.completion.chunk"}, {"created", context_.created}, {"model", model_}};
        body["choices"] = Json::array();
        body["usage"] = usageToJson(usage_);
        write(body, out);
      }
    }
    out += sseFrame("", "[DONE]");
    done_ = true;
  }

  ResponseContext context_;
  std::string id_;
  std::string model_;
  bool started_ = false;
  bool finish_sent_ = false;
  bool done_ = false;
  int next_tool_ = 0;
  std::map<int, Block> blocks_;  // by IR block index
  PendingCallSignature call_signature_;
  StopReason stop_reason_ = StopReason::EndTurn;
  Usage usage_;
  bool usage_reported_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context) {
  return std::make_unique<ChatStreamEncoder>(context);
}

}  // namespace sluice::wire::openai_chat
