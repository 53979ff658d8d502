#include "server/wire/openai_responses/stream_encoder.h"

#include <algorithm>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/items.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_responses/mint_id.h"
#include "server/wire/openai_responses/response_object.h"
#include "server/wire/signature_envelope.h"
#include "server/wire/openai_responses/stop_reason.h"
#include "server/wire/openai_responses/usage_json.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_responses {

namespace {

Json summaryPart(const std::string& text) { return {{"type", "summary_text"}, {"text", text}}; }

}  // namespace

ResponsesStreamEncoder::ResponsesStreamEncoder(ResponseContext context)
    : context_(std::move(context)), response_id_(responseIdFor(context_, "")) {}

std::string ResponsesStreamEncoder::encode(const StreamEvent& event) {
  if (terminated_ || event.type == StreamEvent::Type::Ping) return {};
  // Statements, not one `a() + b()` expression: the frames must be numbered in the order written.
  std::string bytes = start(event.type == StreamEvent::Type::MessageStart ? &event : nullptr);
  switch (event.type) {
    case StreamEvent::Type::MessageStart:
    case StreamEvent::Type::Ping: break;
    case StreamEvent::Type::BlockStart: bytes += blockStart(event.index, event.block); break;
    case StreamEvent::Type::BlockDelta: bytes += blockDelta(event); break;
    case StreamEvent::Type::BlockStop: bytes += blockStop(event.index); break;
    case StreamEvent::Type::MessageDelta:
      if (event.stop_reason) stop_ = event.stop_reason;
      takeUsage(event);
      break;
    case StreamEvent::Type::MessageStop:
      bytes += closeAll();
      bytes += terminal();
      break;
    case StreamEvent::Type::Error: bytes += failure(event.error); break;
  }
  return bytes;
}

std::string ResponsesStreamEncoder::finish() {
  if (!started_ || terminated_) return {};
  std::string bytes = closeAll();
  bytes += terminal();
  return bytes;
}

std::string ResponsesStreamEncoder::frame(std::string_view type, Json payload) {
  Json data = {{"type", type}, {"sequence_number", sequence_++}};
  for (auto& [key, value] : payload.items()) data[key] = std::move(value);
  return sseFrame(type, dumpJsonText(data));
}

Json ResponsesStreamEncoder::responseJson(const std::string& status, const std::string& incomplete_reason,
                                          Json error) const {
  ResponseShape shape;
  shape.id = response_id_;
  shape.status = status;
  shape.incomplete_reason = incomplete_reason;
  shape.error = std::move(error);
  for (const Json& item : output_) {
    if (stringMember(item, "status", "completed") == "completed") shape.output.push_back(item);
  }
  shape.usage = usage_reported_ ? usageJson(usage_) : Json(nullptr);
  return responseObject(context_, shape);
}

std::string ResponsesStreamEncoder::start(const StreamEvent* event) {
  if (event != nullptr) takeUsage(*event);
  if (started_) return {};
  started_ = true;
  Json response = responseJson("in_progress", "", nullptr);
  response["usage"] = nullptr;
  std::string bytes = frame("response.created", {{"response", response}});
  bytes += frame("response.in_progress", {{"response", std::move(response)}});
  return bytes;
}

std::string ResponsesStreamEncoder::blockStart(int index, const ContentBlock& block) {
  if (items_.contains(index)) return {};
  Item item;
  item.block = block;
  item.output_index = output_.size();
  const size_t at = item.output_index;
  Json added;
  switch (block.type) {
    case ContentBlock::Type::Text:
      item.id = mintId("msg", context_.request_id, at);
      added = {{"id", item.id}, {"type", "message"}, {"status", "in_progress"}, {"content", Json::array()}, {"role", "assistant"}};
      break;
    case ContentBlock::Type::ToolUse:
      item.id = mintId("fc", context_.request_id, at);
      added = functionCallItem(block, item.id, "in_progress", "");
      break;
    case ContentBlock::Type::Thinking: {
      const bool own = block.signature_wire == catalog::Wire::OpenAIResponses && !block.reasoning_id.empty();
      item.id = own ? block.reasoning_id : mintId("rs", context_.request_id, at);
      item.signature = block.signature;
      added = {{"id", item.id}, {"type", "reasoning"}, {"summary", Json::array()}};
      break;
    }
    case ContentBlock::Type::Opaque:
      if (block.raw_wire == catalog::Wire::OpenAIResponses && block.raw.is_object() &&
          !isContentPartType(stringMember(block.raw, "type"))) {
        // A hosted-tool item of this same wire arrives whole: added and done at once.
        output_.push_back(block.raw);
        item.done = true;
        items_.emplace(index, std::move(item));
        std::string bytes = frame("response.output_item.added", {{"output_index", at}, {"item", block.raw}});
        return bytes + frame("response.output_item.done", {{"output_index", at}, {"item", block.raw}});
      }
      return {};
    case ContentBlock::Type::Image:
    case ContentBlock::Type::ToolResult:
    case ContentBlock::Type::RedactedThinking: return {};  // nothing a Responses client can show
  }
  output_.push_back(added);
  std::string bytes = frame("response.output_item.added", {{"output_index", at}, {"item", added}});
  if (block.type == ContentBlock::Type::Text) {
    bytes += frame("response.content_part.added",
                   {{"item_id", item.id}, {"output_index", at}, {"content_index", 0}, {"part", outputTextPart("")}});
  }
  const std::string initial = block.type == ContentBlock::Type::ToolUse ? std::string() : block.text;
  items_.emplace(index, std::move(item));
  if (!initial.empty()) {
    StreamEvent first;
    first.index = index;
    first.delta_kind = block.type == ContentBlock::Type::Text ? StreamEvent::DeltaKind::Text : StreamEvent::DeltaKind::Thinking;
    first.delta = initial;
    bytes += blockDelta(first);
  }
  return bytes;
}

std::string ResponsesStreamEncoder::blockDelta(const StreamEvent& event) {
  std::string bytes;
  auto found = items_.find(event.index);
  if (found == items_.end()) {
    // A delta with no start: open the block it implies (text or thinking), else drop it.
    if (event.delta_kind != StreamEvent::DeltaKind::Text && event.delta_kind != StreamEvent::DeltaKind::Thinking) return {};
    ContentBlock implied;
    implied.type = event.delta_kind == StreamEvent::DeltaKind::Text ? ContentBlock::Type::Text : ContentBlock::Type::Thinking;
    bytes += blockStart(event.index, implied);
    found = items_.find(event.index);
    if (found == items_.end()) return bytes;
  }
  Item& item = found->second;
  if (item.done || event.delta.empty()) return bytes;
  const size_t at = item.output_index;
  switch (item.block.type) {
    case ContentBlock::Type::Text:
      if (event.delta_kind != StreamEvent::DeltaKind::Text) return bytes;
      item.text += event.delta;
      return bytes + frame("response.output_text.delta", {{"item_id", item.id},
                                                           {"output_index", at},
                                                           {"content_index", 0},
                                                           {"delta", event.delta},
                                                           {"logprobs", Json::array()}});
    case ContentBlock::Type::ToolUse:
      if (event.delta_kind != StreamEvent::DeltaKind::ToolInputJson) return bytes;
      item.text += event.delta;
      return bytes + frame("response.function_call_arguments.delta",
                           {{"item_id", item.id}, {"output_index", at}, {"delta", event.delta}});
    case ContentBlock::Type::Thinking:
      if (event.delta_kind == StreamEvent::DeltaKind::Signature) {
        item.signature += event.delta;
        return bytes;
      }
      if (event.delta_kind != StreamEvent::DeltaKind::Thinking) return bytes;
      if (!item.summary_open) {
        item.summary_open = true;
        bytes += frame("response.reasoning_summary_part.added",
                       {{"item_id", item.id}, {"output_index", at}, {"summary_index", 0}, {"part", summaryPart("")}});
      }
      item.text += event.delta;
      return bytes + frame("response.reasoning_summary_text.delta",
                           {{"item_id", item.id}, {"output_index", at}, {"summary_index", 0}, {"delta", event.delta}});
    default: return bytes;
  }
}

std::string ResponsesStreamEncoder::blockStop(int index) {
  const auto found = items_.find(index);
  if (found == items_.end() || found->second.done) return {};
  Item& item = found->second;
  item.done = true;
  const size_t at = item.output_index;
  std::string bytes;
  Json done;
  switch (item.block.type) {
    case ContentBlock::Type::Text:
      bytes += frame("response.output_text.done", {{"item_id", item.id},
                                                   {"output_index", at},
                                                   {"content_index", 0},
                                                   {"text", item.text},
                                                   {"logprobs", Json::array()}});
      bytes += frame("response.content_part.done",
                     {{"item_id", item.id}, {"output_index", at}, {"content_index", 0}, {"part", outputTextPart(item.text)}});
      done = outputMessageItem(item.id, "completed", item.text);
      break;
    case ContentBlock::Type::ToolUse:
      if (item.text.empty()) {
        // No argument came: a call without arguments is "{}" (or the input the start carried).
        const bool has_input = item.block.tool_input.is_object() && !item.block.tool_input.empty();
        const std::string arguments = has_input ? dumpJsonText(item.block.tool_input) : "{}";
        item.text = arguments;
        bytes += frame("response.function_call_arguments.delta",
                       {{"item_id", item.id}, {"output_index", at}, {"delta", arguments}});
      }
      bytes += frame("response.function_call_arguments.done",
                     {{"item_id", item.id}, {"output_index", at}, {"arguments", item.text}});
      done = functionCallItem(item.block, item.id, "completed", item.text);
      break;
    case ContentBlock::Type::Thinking: {
      if (item.summary_open) {
        bytes += frame("response.reasoning_summary_text.done",
                       {{"item_id", item.id}, {"output_index", at}, {"summary_index", 0}, {"text", item.text}});
        bytes += frame("response.reasoning_summary_part.done",
                       {{"item_id", item.id}, {"output_index", at}, {"summary_index", 0}, {"part", summaryPart(item.text)}});
      }
      // As in the whole answer: another wire's unsigned reasoning still gets its envelope.
      const std::string encrypted = wrapSignature(catalog::Wire::OpenAIResponses, item.block.signature_wire, item.block.reasoning_id, item.signature);
      done = reasoningItem(item.id, item.text, encrypted);
      break;
    }
    default: return {};
  }
  output_[at] = done;
  return bytes + frame("response.output_item.done", {{"output_index", at}, {"item", std::move(done)}});
}

std::string ResponsesStreamEncoder::closeAll() {
  std::string bytes;
  std::vector<std::pair<size_t, int>> open;
  for (const auto& [index, item] : items_) {
    if (!item.done) open.emplace_back(item.output_index, index);
  }
  std::sort(open.begin(), open.end());
  for (const auto& [at, index] : open) bytes += blockStop(index);
  return bytes;
}

std::string ResponsesStreamEncoder::terminal() {
  terminated_ = true;
  const ResponseStatus status = statusFor(stop_.value_or(StopReason::EndTurn));
  if (status.status == "failed") {
    Json error = {{"code", "server_error"}, {"message", "the provider's answer ended in an error"}};
    return frame("response.failed", {{"response", responseJson("failed", "", std::move(error))}});
  }
  const std::string type = status.status == "incomplete" ? "response.incomplete" : "response.completed";
  return frame(type, {{"response", responseJson(status.status, status.incomplete_reason, nullptr)}});
}

std::string ResponsesStreamEncoder::failure(const ApiError& error) {
  terminated_ = true;
  const std::string code = error.key.empty() ? "server_error" : error.key;
  const Json param = error.param ? Json(*error.param) : Json(nullptr);
  // NOTE: the documented event is flat; the live API nests the same fields under "error". Both
  // are written so either kind of client finds them.
  Json nested = {{"type", errorTypeFor(catalog::Wire::OpenAIResponses, error.status)},
                 {"code", code},
                 {"message", error.message},
                 {"param", param}};
  std::string bytes =
      frame("error", {{"code", code}, {"message", error.message}, {"param", param}, {"error", std::move(nested)}});
  Json failed = {{"code", code}, {"message", error.message}};
  return bytes + frame("response.failed", {{"response", responseJson("failed", "", std::move(failed))}});
}

void ResponsesStreamEncoder::takeUsage(const StreamEvent& event) {
  if (!event.usage_reported) return;
  // MessageDelta usage is cumulative; MessageStart may be the only one to know the input side.
  usage_.input_tokens = std::max(usage_.input_tokens, event.usage.input_tokens);
  usage_.output_tokens = std::max(usage_.output_tokens, event.usage.output_tokens);
  usage_.cache_read_tokens = std::max(usage_.cache_read_tokens, event.usage.cache_read_tokens);
  usage_.cache_write_tokens = std::max(usage_.cache_write_tokens, event.usage.cache_write_tokens);
  usage_.reasoning_tokens = std::max(usage_.reasoning_tokens, event.usage.reasoning_tokens);
  usage_reported_ = true;
}

std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context) {
  return std::make_unique<ResponsesStreamEncoder>(context);
}

}  // namespace sluice::wire::openai_responses
