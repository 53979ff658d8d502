#include "server/wire/gemini/chunk_translator.h"

#include <utility>

#include "server/wire/gemini/google_error.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/gemini/stop_reason.h"
#include "server/wire/gemini/tool_ids.h"

namespace sluice::wire::gemini {
namespace {


StreamEvent errorEvent(ApiError error) {
  StreamEvent event;
  event.type = StreamEvent::Type::Error;
  event.error = std::move(error);
  return event;
}

std::string signatureOf(const Json& part) {
  std::string signature = stringMember(part, "thoughtSignature");
  if (signature.empty()) signature = stringMember(part, "thought_signature");
  return signature;
}

// Members that describe a part rather than being its content.
bool isPartDecoration(const std::string& key) {
  return key == "thought" || key == "thoughtSignature" || key == "thought_signature" || key == "partMetadata";
}

}  // namespace

void ChunkTranslator::fail(const std::string& message, std::vector<StreamEvent>& out) {
  if (failed_) return;
  failed_ = true;
  out.push_back(errorEvent(ApiError::upstreamInvalidResponse(message)));
}

void ChunkTranslator::take(const Json& chunk, std::vector<StreamEvent>& out) {
  if (failed_) return;
  if (!chunk.is_object()) {
    fail("gemini answered with something other than a JSON object", out);
    return;
  }
  if (const Json* error = objectMember(chunk, "error")) {
    failed_ = true;
    out.push_back(errorEvent(apiErrorFromGoogle(0, *error, std::nullopt)));
    return;
  }
  if (response_id_.empty()) response_id_ = stringMember(chunk, "responseId");
  if (model_.empty()) model_ = stringMember(chunk, "modelVersion");
  if (const Json* usage = objectMember(chunk, "usageMetadata")) usage_.merge(*usage);

  if (!started_) {
    started_ = true;
    StreamEvent start;
    start.type = StreamEvent::Type::MessageStart;
    start.id = response_id_;
    start.model = model_;
    if (usage_.hasInput()) {
      start.usage = usage_.inputUsage();
      start.usage_reported = true;
    }
    out.push_back(std::move(start));
  }

  const Json* candidates = arrayMember(chunk, "candidates");
  if (candidates != nullptr && !candidates->empty()) {
    // Only the first candidate is translated: the gateway never asks for candidateCount > 1.
    takeCandidate(candidates->front(), out);
    return;
  }
  if (const Json* feedback = objectMember(chunk, "promptFeedback")) {
    if (!stringMember(*feedback, "blockReason").empty()) {
      closeOpen(out);
      prompt_blocked_ = true;
    }
  }
}

void ChunkTranslator::takeCandidate(const Json& candidate, std::vector<StreamEvent>& out) {
  if (!candidate.is_object()) return;
  const int64_t candidate_index = int64Member(candidate, "index").value_or(0);
  if (const Json* content = objectMember(candidate, "content")) {
    if (const Json* parts = arrayMember(*content, "parts")) {
      for (const Json& part : *parts) takePart(part, candidate_index, out);
    }
  }
  if (const std::string reason = stringMember(candidate, "finishReason"); !reason.empty()) {
    finish_reason_ = reason;
    closeOpen(out);
  }
}

void ChunkTranslator::takePart(const Json& part, int64_t candidate_index, std::vector<StreamEvent>& out) {
  if (!part.is_object()) return;
  const Json* call = objectMember(part, "functionCall");
  if (open_ == Open::Call) {
    if (call != nullptr && member(*call, "name") == nullptr) {
      // A signature on a continuation piece (never observed, but the piece is the same part)
      // belongs to the call: a held call gets it in front when it is released.
      if (const std::string signature = signatureOf(part); !signature.empty()) deferred_signature_ = signature;
      continueCall(*call, out);
      return;
    }
    closeOpen(out);  // the streamed call ended without its closing piece
  }

  const std::string signature = signatureOf(part);
  const Json* text = member(part, "text");
  const bool thought = trueMember(part, "thought");
  const bool thought_text = thought && text != nullptr && text->is_string() && !text->get_ref<const std::string&>().empty();
  // A signed thought part closes its own run, so its text goes in before the signature.
  if (!signature.empty() && !thought_text) emitSignature(signature, out);

  if (call != nullptr) {
    takeFunctionCall(*call, candidate_index, !signature.empty(), out);
    return;
  }
  if (text != nullptr && text->is_string()) {
    const std::string& value = text->get_ref<const std::string&>();
    const Open kind = thought ? Open::Thought : Open::Text;
    if (value.empty()) return;
    if (open_ != kind) {
      closeOpen(out);
      ContentBlock block;
      block.type = thought ? ContentBlock::Type::Thinking : ContentBlock::Type::Text;
      if (thought) block.signature_wire = catalog::Wire::Gemini;
      startBlock(block, out);
      open_ = kind;
    }
    delta(thought ? StreamEvent::DeltaKind::Thinking : StreamEvent::DeltaKind::Text, value, out);
    if (thought_text && !signature.empty()) emitSignature(signature, out);
    return;
  }
  // Anything else with content (inlineData, executableCode, codeExecutionResult, ...) is kept
  // verbatim for a later Gemini request; the signature already went out as its own block.
  Json raw = Json::object();
  for (auto it = part.begin(); it != part.end(); ++it) {
    if (!isPartDecoration(it.key())) raw[it.key()] = it.value();
  }
  if (raw.empty()) return;
  closeOpen(out);
  ContentBlock block;
  block.type = ContentBlock::Type::Opaque;
  block.raw = std::move(raw);
  block.raw_wire = catalog::Wire::Gemini;
  startBlock(block, out);
  stopBlock(out);
}

void ChunkTranslator::takeFunctionCall(const Json& call, int64_t candidate_index, bool signed_part,
                                       std::vector<StreamEvent>& out) {
  const std::string name = stringMember(call, "name");
  if (name.empty()) return;  // a stray continuation piece with no call open
  closeOpen(out);
  saw_function_call_ = true;
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_name = name;
  block.tool_id = stringMember(call, "id");
  if (block.tool_id.empty()) block.tool_id = mintToolCallId(response_id_, candidate_index, call_count_, name);
  ++call_count_;

  const Json* args = objectMember(call, "args");
  if (trueMember(call, "willContinue") && args == nullptr) {
    // An unsigned first piece: its signature may still come on a continuation piece, and every
    // client wire must see a call's signature before the call (Chat carries it in the call's id,
    // which goes out with the call's first delta). Such a call is held whole until it closes.
    // NOTE: this costs the argument streaming of unsigned calls (Gemini signs only the first
    // call of a step, so parallel calls after it arrive whole).
    holding_ = !signed_part;
    held_.clear();
    startBlock(block, sink(out));
    open_ = Open::Call;
    call_args_ = PartialArgsWriter();
    if (const Json* partial = arrayMember(call, "partialArgs")) {
      if (std::string text = call_args_.apply(*partial); !text.empty()) {
        delta(StreamEvent::DeltaKind::ToolInputJson, std::move(text), sink(out));
      }
    }
    return;
  }
  startBlock(block, out);
  delta(StreamEvent::DeltaKind::ToolInputJson, args != nullptr ? dumpJsonText(*args) : std::string("{}"), out);
  stopBlock(out);
}

void ChunkTranslator::continueCall(const Json& call, std::vector<StreamEvent>& out) {
  if (const Json* partial = arrayMember(call, "partialArgs")) {
    if (std::string text = call_args_.apply(*partial); !text.empty()) {
      delta(StreamEvent::DeltaKind::ToolInputJson, std::move(text), sink(out));
    }
  }
  if (!trueMember(call, "willContinue")) closeOpen(out);
}

// Gemini signs the part after a thought run (the first answer part, or the function call), never
// the thought text itself. A signature met while thought text is open therefore closes that run,
// signed: the client sees one signed thinking block before the answer, and on replay the
// signature waits for the next part again (request_contents), which is where Gemini put it.
// A signature with no thought run open (a streamed answer's trailing empty part, or a call after
// text) stays a block of its own at the place Gemini sent it.
void ChunkTranslator::emitSignature(const std::string& signature, std::vector<StreamEvent>& out) {
  if (open_ == Open::Thought) {
    delta(StreamEvent::DeltaKind::Signature, signature, out);
    closeOpen(out);
    return;
  }
  closeOpen(out);
  ContentBlock block;
  block.type = ContentBlock::Type::Thinking;
  block.signature_wire = catalog::Wire::Gemini;
  startBlock(block, out);
  delta(StreamEvent::DeltaKind::Signature, signature, out);
  stopBlock(out);
}

// The held call goes out whole; a signature that came on one of its pieces goes first, as its
// own signature block, taking the call's index (the call moves one up) so indices still increase
// in the order blocks start.
void ChunkTranslator::releaseHeldCall(std::vector<StreamEvent>& out) {
  holding_ = false;
  std::vector<StreamEvent> held = std::exchange(held_, {});
  if (held.empty()) return;
  const std::string signature = std::exchange(deferred_signature_, std::string());
  if (!signature.empty()) {
    const int call_index = held.front().index;
    next_index_ = call_index;
    emitSignature(signature, out);
    for (StreamEvent& event : held) event.index = next_index_;
    ++next_index_;
  }
  for (StreamEvent& event : held) out.push_back(std::move(event));
}

int ChunkTranslator::startBlock(const ContentBlock& block, std::vector<StreamEvent>& out) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockStart;
  event.index = next_index_++;
  event.block = block;
  open_index_ = event.index;
  out.push_back(std::move(event));
  return open_index_;
}

void ChunkTranslator::delta(StreamEvent::DeltaKind kind, std::string text, std::vector<StreamEvent>& out) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockDelta;
  event.index = open_index_;
  event.delta_kind = kind;
  event.delta = std::move(text);
  out.push_back(std::move(event));
}

void ChunkTranslator::stopBlock(std::vector<StreamEvent>& out) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockStop;
  event.index = open_index_;
  out.push_back(std::move(event));
  open_ = Open::None;
  open_index_ = -1;
}

void ChunkTranslator::closeOpen(std::vector<StreamEvent>& out) {
  if (open_ == Open::None) return;
  if (open_ == Open::Call) {
    if (std::string text = call_args_.close(); !text.empty()) {
      delta(StreamEvent::DeltaKind::ToolInputJson, std::move(text), sink(out));
    }
    if (holding_) {
      stopBlock(held_);
      releaseHeldCall(out);
      return;
    }
  }
  stopBlock(out);
  if (!deferred_signature_.empty()) {
    const std::string signature = std::exchange(deferred_signature_, std::string());
    emitSignature(signature, out);
  }
}

void ChunkTranslator::finish(bool require_finish_reason, std::vector<StreamEvent>& out) {
  if (failed_ || ended_) return;
  if (require_finish_reason && !finish_reason_ && !prompt_blocked_) {
    failed_ = true;
    out.push_back(errorEvent(ApiError::upstreamStreamTruncated("the gemini stream ended before its finishReason")));
    return;
  }
  ended_ = true;
  closeOpen(out);
  StreamEvent delta_event;
  delta_event.type = StreamEvent::Type::MessageDelta;
  delta_event.stop_reason =
      prompt_blocked_ && !finish_reason_ ? StopReason::Refusal
                                         : stopReasonFor(finish_reason_.value_or(""), saw_function_call_);
  delta_event.usage = usage_.usage();
  delta_event.usage_reported = usage_.reported();
  out.push_back(std::move(delta_event));
  StreamEvent stop;
  stop.type = StreamEvent::Type::MessageStop;
  out.push_back(std::move(stop));
}

}  // namespace sluice::wire::gemini
