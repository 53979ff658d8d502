#pragma once
// Turns GenerateContentResponse objects into neutral StreamEvents: each streamed chunk, or the one
// body of a non-streamed answer, goes through take(). Both paths share it so a streamed answer
// and the same answer unstreamed decode to the same blocks and the same minted tool ids.
//
// Block layout produced from candidates[0].content.parts:
// - a part carrying thoughtSignature first yields a Thinking block with empty text whose
//   signature is that thoughtSignature (signature_wire Gemini), immediately BEFORE the block of
//   the part itself, so the request encoder can put the signature back on that same part;
// - `thought: true` text -> Thinking (signature_wire Gemini, no signature); other text -> Text;
//   consecutive text chunks of the same kind join one block;
// - functionCall -> ToolUse: BlockStart, one ToolInputJson delta with the compact args ("{}"
//   when none), BlockStop; id = functionCall.id or mintToolCallId(); Vertex `partialArgs`
//   streams are accumulated and emitted as several deltas when the call's first piece is
//   signed; an unsigned streamed call is held until it closes and then emitted whole, after the
//   signature block of a signature that came on one of its later pieces. So a call's signature
//   block always comes right before the call, streamed or not, and no signature block follows
//   a call it belongs to;
// - any other part (inlineData, executableCode, ...) -> Opaque (raw part, raw_wire Gemini).
// Pure; never throws.

#include <optional>
#include <string>
#include <vector>

#include "server/wire/gemini/partial_args.h"
#include "server/wire/gemini/usage_totals.h"
#include "server/wire/ir.h"

namespace sluice::wire::gemini {

class ChunkTranslator {
 public:
  // Appends the events this chunk completes. A chunk that is not an object yields an Error
  // (502 "upstream_invalid_response"); an `{"error":{...}}` chunk yields its Error. After an
  // Error, failed() is true and later input is ignored.
  void take(const Json& chunk, std::vector<StreamEvent>& out);
  // Appends an Error event (502 "upstream_invalid_response") and stops translating.
  void fail(const std::string& message, std::vector<StreamEvent>& out);
  // The answer is over. Closes the open block and appends MessageDelta (stop reason, final
  // usage) and MessageStop. When `require_finish_reason` (streams) and no finishReason nor
  // prompt block was seen, appends only an Error (502 "upstream_stream_truncated") instead.
  void finish(bool require_finish_reason, std::vector<StreamEvent>& out);
  bool failed() const { return failed_; }

 private:
  enum class Open { None, Text, Thought, Call };

  void takeCandidate(const Json& candidate, std::vector<StreamEvent>& out);
  void takePart(const Json& part, int64_t candidate_index, std::vector<StreamEvent>& out);
  void takeFunctionCall(const Json& call, int64_t candidate_index, bool signed_part, std::vector<StreamEvent>& out);
  void releaseHeldCall(std::vector<StreamEvent>& out);
  std::vector<StreamEvent>& sink(std::vector<StreamEvent>& out) { return holding_ ? held_ : out; }
  void continueCall(const Json& call, std::vector<StreamEvent>& out);
  void emitSignature(const std::string& signature, std::vector<StreamEvent>& out);
  int startBlock(const ContentBlock& block, std::vector<StreamEvent>& out);
  void delta(StreamEvent::DeltaKind kind, std::string text, std::vector<StreamEvent>& out);
  void stopBlock(std::vector<StreamEvent>& out);
  void closeOpen(std::vector<StreamEvent>& out);

  bool started_ = false;
  bool failed_ = false;
  bool ended_ = false;
  std::string response_id_;
  std::string model_;
  UsageTotals usage_;
  std::optional<std::string> finish_reason_;
  bool prompt_blocked_ = false;
  bool saw_function_call_ = false;
  int64_t call_count_ = 0;

  Open open_ = Open::None;
  int open_index_ = -1;
  int next_index_ = 0;
  PartialArgsWriter call_args_;
  std::string deferred_signature_;  // a signature met inside a streamed call
  bool holding_ = false;            // the open streamed call is unsigned: its events wait in held_
  std::vector<StreamEvent> held_;
};

}  // namespace sluice::wire::gemini
