#pragma once
// Restoring the answer of a masked attempt: the placeholders the model echoes are replaced by the
// originals of the request's Mapping, in whole answers and in streams. Pure.
//
// Only placeholders minted for this request are replaced; any other ⟦KIND_N⟧ (one the client wrote,
// one the model made up) is left as it is.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "server/protection/mapping.h"
#include "server/wire/ir.h"

namespace sluice::protection {

// `text` with every known placeholder replaced by its original.
std::string restoreText(std::string_view text, const Mapping& mapping);

// Restores one block of an answer: Text and Thinking text (the signature stays: it covers the
// provider's text, which masking the next turn reproduces), ToolUse input strings and keys
// (recursively), and the strings of an Opaque block's JSON.
void restoreBlock(wire::ContentBlock& block, const Mapping& mapping);

// Restores every block of a whole answer.
void restoreResponse(wire::Response& response, const Mapping& mapping);

// Restores a stream of IR events between the provider's stream decoder and the client's encoder.
//
// Per content block (by index), Text and Thinking deltas are plain text and ToolInputJson deltas
// partial JSON text: there a placeholder is replaced by its original escaped for a JSON string,
// and a placeholder written with JSON escapes (\u27e6 ... \u27e7) is recognised too. A delta whose
// end could be the start of a placeholder (down to the first byte of ⟦'s UTF-8 or a lone '\')
// keeps that tail back, at most kMaxEscapedPlaceholderBytes - 1 bytes, and puts it in front of the
// next delta of the block; a delta without such a tail goes out whole at once. A held tail that
// does not become a known placeholder goes out unchanged: with the next delta, before a delta of
// another kind on the same block (a Signature), or as an extra delta of its own before the
// block's BlockStop, or before MessageDelta, MessageStop or Error (every block's tail, by index).
// Signature deltas and every other event pass untouched (BlockStart's block is restored as
// restoreBlock does). A delta that is all held back produces no event.
//
// Not thread-safe; one per stream. Keeps a reference to `mapping`, which must outlive it.
class StreamRestorer {
 public:
  explicit StreamRestorer(const Mapping& mapping) : mapping_(mapping) {}

  // The events to send for `event`, in order: zero, one, or more (flushed tails first).
  std::vector<wire::StreamEvent> feed(wire::StreamEvent event);
  // The same, appending to `out`.
  void feed(wire::StreamEvent event, std::vector<wire::StreamEvent>& out);

  // Bytes held back across all blocks.
  size_t heldBytes() const;

 private:
  struct Block {
    int index = 0;
    wire::StreamEvent::DeltaKind kind = wire::StreamEvent::DeltaKind::Text;
    std::string held;
    // ToolInputJson: the JSON lexer's state where `held` starts.
    bool in_string = false;
    bool escaped = false;
  };

  Block& block(int index);
  void flush(Block& block, std::vector<wire::StreamEvent>& out);
  void flushAll(std::vector<wire::StreamEvent>& out);
  // The restored text of `held` + `delta`; what may still become a placeholder goes to `held`.
  std::string restoreDelta(Block& block, std::string_view delta);

  const Mapping& mapping_;
  // By index: a provider may open any number of blocks, and each event finds its own in log time
  // (flushAll() sends the held tails in index order).
  std::map<int, Block> blocks_;
};

}  // namespace sluice::protection
