#include "server/wire/openai_responses/stream_decoder.h"

#include <algorithm>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_responses/stop_reason.h"
#include "server/wire/openai_responses/usage_json.h"

namespace sluice::wire::openai_responses {

namespace {

constexpr int64_t kWholeItem = -1;

StreamEvent event(StreamEvent::Type type) {
  StreamEvent out;
  out.type = type;
  return out;
}

ContentBlock blockOf(ContentBlock::Type type) {
  ContentBlock block;
  block.type = type;
  return block;
}

// The `error` event is documented flat ({code, message, param}); the live API nests the same
// fields under "error" (see the recorded insufficient_quota stream). Both are read.
ApiError streamError(const Json& data) {
  const Json* nested = member(data, "error");
  const Json& source = nested != nullptr && nested->is_object() ? *nested : data;
  std::string code = stringMember(source, "code", stringMember(data, "code"));
  if (code.empty()) code = stringMember(source, "type") == "error" ? "" : stringMember(source, "type");
  ApiError error;
  error.status = httpStatusForCode(code);
  error.key = code.empty() ? std::string(error_keys::kUpstreamStreamError) : code;
  error.message = stringMember(source, "message", stringMember(data, "message", "the provider's stream failed"));
  if (const Json* param = member(source, "param"); param != nullptr && param->is_string()) error.param = param->get<std::string>();
  return error;
}

std::string joinedSummary(const Json& item) {
  std::string text;
  if (const Json* summary = member(item, "summary"); summary != nullptr && summary->is_array()) {
    for (const Json& part : *summary) {
      const std::string piece = stringMember(part, "text");
      if (piece.empty()) continue;
      if (!text.empty()) text += "\n\n";
      text += piece;
    }
  }
  return text;
}

}  // namespace

std::vector<StreamEvent> ResponsesStreamDecoder::feed(std::string_view bytes) {
  std::vector<StreamEvent> out;
  for (const SseEvent& sse : parser_.feed(bytes)) take(sse, out);
  return out;
}

std::vector<StreamEvent> ResponsesStreamDecoder::finish() {
  std::vector<StreamEvent> out;
  for (const SseEvent& sse : parser_.finish()) take(sse, out);
  if (!done_) {
    fail(ApiError::upstreamStreamTruncated("the provider's stream ended before response.completed"), out);
  }
  return out;
}

void ResponsesStreamDecoder::take(const SseEvent& sse, std::vector<StreamEvent>& out) {
  if (done_) return;
  if (sse.data == "[DONE]") return;  // not part of this wire, but some compatible servers send it
  const Json data = parseBounded(sse.data);
  if (data.is_discarded() || !data.is_object()) {
    fail(ApiError::upstreamInvalidResponse("the provider's stream carried an event that is not a JSON object"), out);
    return;
  }
  const std::string type = stringMember(data, "type", sse.event);
  if (type == "response.created" || type == "response.in_progress" || type == "response.queued") {
    ensureStarted(member(data, "response"), out);
    return;
  }
  if (type == "error") return fail(streamError(data), out);
  if (type == "response.failed") {
    const Json* response = member(data, "response");
    const Json* error = response != nullptr ? member(*response, "error") : nullptr;
    return fail(error != nullptr ? streamError(Json{{"error", *error}}) : streamError(Json::object()), out);
  }
  if (type == "response.completed" || type == "response.incomplete") {
    const Json* response = member(data, "response");
    return onTerminal(response != nullptr ? *response : Json::object(), out);
  }
  ensureStarted(nullptr, out);
  if (type == "response.output_item.added") return onItemAdded(data, out);
  if (type == "response.output_item.done") return onItemDone(data, out);

  const int64_t output_index = outputIndex(data);
  const Key part_key{output_index, intMember(data, "content_index").value_or(0)};
  const Key item_key{output_index, kWholeItem};
  if (type == "response.content_part.added") {
    const Json* part = member(data, "part");
    const std::string part_type = part != nullptr ? stringMember(*part, "type") : "";
    if (part_type != "output_text" && part_type != "refusal") return;
    if (find(part_key) == nullptr) open(part_key, blockOf(ContentBlock::Type::Text), out);
    if (part_type == "refusal") saw_refusal_ = true;
    const std::string text = stringMember(*part, part_type == "refusal" ? "refusal" : "text");
    if (!text.empty()) delta(part_key, StreamEvent::DeltaKind::Text, text, out);
  } else if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    if (type == "response.refusal.delta") saw_refusal_ = true;
    if (find(part_key) == nullptr) open(part_key, blockOf(ContentBlock::Type::Text), out);
    delta(part_key, StreamEvent::DeltaKind::Text, stringMember(data, "delta"), out);
  } else if (type == "response.output_text.done" || type == "response.refusal.done" ||
             type == "response.content_part.done") {
    // Servers that skip the deltas still say the whole text here.
    const Json* part = member(data, "part");
    std::string text = stringMember(data, type == "response.refusal.done" ? "refusal" : "text");
    if (part != nullptr) text = stringMember(*part, stringMember(*part, "type") == "refusal" ? "refusal" : "text");
    Block* block = find(part_key);
    if (block == nullptr && !text.empty()) block = &open(part_key, blockOf(ContentBlock::Type::Text), out);
    if (block != nullptr && block->open && !block->sent && !text.empty()) delta(part_key, StreamEvent::DeltaKind::Text, text, out);
    if (type == "response.content_part.done") close(part_key, out);
  } else if (type == "response.reasoning_summary_part.added") {
    Block* block = find(item_key);
    if (block == nullptr) block = &open(item_key, blockOf(ContentBlock::Type::Thinking), out);
    if (block->summary_parts++ > 0 && block->sent) delta(item_key, StreamEvent::DeltaKind::Thinking, "\n\n", out);
  } else if (type == "response.reasoning_summary_text.delta" || type == "response.reasoning_text.delta") {
    if (find(item_key) == nullptr) open(item_key, blockOf(ContentBlock::Type::Thinking), out);
    delta(item_key, StreamEvent::DeltaKind::Thinking, stringMember(data, "delta"), out);
  } else if (type == "response.function_call_arguments.delta") {
    if (find(item_key) != nullptr) delta(item_key, StreamEvent::DeltaKind::ToolInputJson, stringMember(data, "delta"), out);
  } else if (type == "response.function_call_arguments.done") {
    Block* block = find(item_key);
    const std::string arguments = stringMember(data, "arguments");
    if (block != nullptr && block->open && !block->sent && !arguments.empty()) {
      delta(item_key, StreamEvent::DeltaKind::ToolInputJson, arguments, out);
    }
  }
  // Everything else (annotations, hosted-tool progress, audio, ...) says nothing the IR keeps.
}

void ResponsesStreamDecoder::onItemAdded(const Json& data, std::vector<StreamEvent>& out) {
  const Json* item = member(data, "item");
  if (item == nullptr || !item->is_object()) return;
  const int64_t output_index = intMember(data, "output_index").value_or(static_cast<int64_t>(item_index_.size()));
  const std::string id = stringMember(*item, "id");
  if (!id.empty()) item_index_[id] = output_index;
  const std::string type = stringMember(*item, "type");
  const Key key{output_index, kWholeItem};
  if (type == "reasoning") {
    ContentBlock block = blockOf(ContentBlock::Type::Thinking);
    block.signature_wire = catalog::Wire::OpenAIResponses;
    block.reasoning_id = id;
    open(key, std::move(block), out).signature = stringMember(*item, "encrypted_content");
  } else if (type == "function_call") {
    ContentBlock block = blockOf(ContentBlock::Type::ToolUse);
    block.tool_id = stringMember(*item, "call_id");
    block.tool_name = stringMember(*item, "name");
    block.tool_namespace = stringMember(*item, "namespace");
    saw_function_call_ = true;
    open(key, std::move(block), out);
  }
  // Message items open a Text block per content part; hosted-tool items are sent whole at done.
}

void ResponsesStreamDecoder::onItemDone(const Json& data, std::vector<StreamEvent>& out) {
  const Json* item = member(data, "item");
  if (item == nullptr || !item->is_object()) return;
  const int64_t output_index = intMember(data, "output_index").value_or(outputIndex(data));
  const std::string type = stringMember(*item, "type");
  const Key key{output_index, kWholeItem};
  if (type == "message") {
    const bool any_part = std::any_of(blocks_.begin(), blocks_.end(),
                                      [&](const auto& entry) { return entry.first.first == output_index; });
    const Json* content = member(*item, "content");
    if (!any_part && content != nullptr && content->is_array()) {
      // A server that sent the message only whole: one Text block per part, now.
      for (size_t index = 0; index < content->size(); ++index) {
        const Json& part = (*content)[index];
        const std::string part_type = stringMember(part, "type");
        if (part_type != "output_text" && part_type != "refusal") continue;
        if (part_type == "refusal") saw_refusal_ = true;
        const Key part_key{output_index, static_cast<int64_t>(index)};
        open(part_key, blockOf(ContentBlock::Type::Text), out);
        const std::string text = stringMember(part, part_type == "refusal" ? "refusal" : "text");
        if (!text.empty()) delta(part_key, StreamEvent::DeltaKind::Text, text, out);
      }
    }
    closeItem(output_index, out);
  } else if (type == "reasoning") {
    Block* block = find(key);
    if (block == nullptr) {
      ContentBlock start = blockOf(ContentBlock::Type::Thinking);
      start.signature_wire = catalog::Wire::OpenAIResponses;
      start.reasoning_id = stringMember(*item, "id");
      block = &open(key, std::move(start), out);
    }
    if (!block->open) return;
    if (!block->sent) {
      const std::string summary = joinedSummary(*item);
      if (!summary.empty()) delta(key, StreamEvent::DeltaKind::Thinking, summary, out);
    }
    const std::string signature = stringMember(*item, "encrypted_content", block->signature);
    if (!signature.empty()) delta(key, StreamEvent::DeltaKind::Signature, signature, out);
    close(key, out);
  } else if (type == "function_call") {
    Block* block = find(key);
    if (block == nullptr) {
      ContentBlock start = blockOf(ContentBlock::Type::ToolUse);
      start.tool_id = stringMember(*item, "call_id");
      start.tool_name = stringMember(*item, "name");
      start.tool_namespace = stringMember(*item, "namespace");
      saw_function_call_ = true;
      block = &open(key, std::move(start), out);
    }
    if (!block->open) return;
    if (!block->sent) {
      const std::string arguments = stringMember(*item, "arguments");
      const bool blank = arguments.find_first_not_of(" \t\r\n") == std::string::npos;
      delta(key, StreamEvent::DeltaKind::ToolInputJson, blank ? "{}" : arguments, out);
    }
    close(key, out);
  } else {
    ContentBlock block = blockOf(ContentBlock::Type::Opaque);
    block.raw = *item;
    block.raw_wire = catalog::Wire::OpenAIResponses;
    if (find(key) != nullptr) return;
    open(key, std::move(block), out);
    close(key, out);
  }
}

void ResponsesStreamDecoder::onTerminal(const Json& response, std::vector<StreamEvent>& out) {
  ensureStarted(&response, out);
  std::vector<std::pair<int, Key>> open_blocks;
  for (const auto& [key, block] : blocks_) {
    if (block.open) open_blocks.emplace_back(block.index, key);
  }
  std::sort(open_blocks.begin(), open_blocks.end());
  for (const auto& [index, key] : open_blocks) close(key, out);

  bool saw_function_call = saw_function_call_;
  if (const Json* output = member(response, "output"); output != nullptr && output->is_array()) {
    for (const Json& item : *output) saw_function_call |= stringMember(item, "type") == "function_call";
  }
  StreamEvent delta_event = event(StreamEvent::Type::MessageDelta);
  delta_event.stop_reason = stopReasonFor(response, saw_function_call, saw_refusal_);
  if (const Json* usage = member(response, "usage")) delta_event.usage_reported = readUsage(*usage, delta_event.usage);
  out.push_back(std::move(delta_event));
  out.push_back(event(StreamEvent::Type::MessageStop));
  done_ = true;
}

void ResponsesStreamDecoder::fail(ApiError error, std::vector<StreamEvent>& out) {
  StreamEvent failure = event(StreamEvent::Type::Error);
  failure.error = std::move(error);
  out.push_back(std::move(failure));
  done_ = true;
}

void ResponsesStreamDecoder::ensureStarted(const Json* response, std::vector<StreamEvent>& out) {
  if (started_) return;
  started_ = true;
  StreamEvent start = event(StreamEvent::Type::MessageStart);
  if (response != nullptr) {
    start.id = stringMember(*response, "id");
    start.model = stringMember(*response, "model");
    if (const Json* usage = member(*response, "usage")) start.usage_reported = readUsage(*usage, start.usage);
  }
  out.push_back(std::move(start));
}

ResponsesStreamDecoder::Block& ResponsesStreamDecoder::open(Key key, ContentBlock block, std::vector<StreamEvent>& out) {
  Block state;
  state.index = next_index_++;
  state.type = block.type;
  StreamEvent start = event(StreamEvent::Type::BlockStart);
  start.index = state.index;
  start.block = std::move(block);
  out.push_back(std::move(start));
  return blocks_[key] = state;
}

ResponsesStreamDecoder::Block* ResponsesStreamDecoder::find(Key key) {
  const auto found = blocks_.find(key);
  return found == blocks_.end() ? nullptr : &found->second;
}

void ResponsesStreamDecoder::delta(Key key, StreamEvent::DeltaKind kind, std::string text, std::vector<StreamEvent>& out) {
  Block* block = find(key);
  if (block == nullptr || !block->open || text.empty()) return;
  if (kind != StreamEvent::DeltaKind::Signature) block->sent = true;
  StreamEvent step = event(StreamEvent::Type::BlockDelta);
  step.index = block->index;
  step.delta_kind = kind;
  step.delta = std::move(text);
  out.push_back(std::move(step));
}

void ResponsesStreamDecoder::close(Key key, std::vector<StreamEvent>& out) {
  Block* block = find(key);
  if (block == nullptr || !block->open) return;
  if (block->type == ContentBlock::Type::ToolUse && !block->sent) delta(key, StreamEvent::DeltaKind::ToolInputJson, "{}", out);
  block->open = false;
  StreamEvent stop = event(StreamEvent::Type::BlockStop);
  stop.index = block->index;
  out.push_back(std::move(stop));
}

void ResponsesStreamDecoder::closeItem(int64_t output_index, std::vector<StreamEvent>& out) {
  for (auto& [key, block] : blocks_) {
    if (key.first == output_index && block.open) close(key, out);
  }
}

int64_t ResponsesStreamDecoder::outputIndex(const Json& data) const {
  if (auto index = intMember(data, "output_index")) return *index;
  const auto found = item_index_.find(stringMember(data, "item_id"));
  return found == item_index_.end() ? 0 : found->second;
}

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<ResponsesStreamDecoder>(); }

}  // namespace sluice::wire::openai_responses
