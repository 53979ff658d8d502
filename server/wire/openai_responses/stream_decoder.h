#pragma once
// Incremental reader of a Responses provider's SSE stream -> neutral stream events.
//
// Each output item becomes one IR block (a message item: one Text block per content part), in
// the order the items start. Reasoning summaries arrive as Thinking deltas (parts joined with
// "\n\n") and the final encrypted_content as one Signature delta just before the block stops;
// function-call argument fragments pass through as ToolInputJson deltas (a call whose arguments
// never came yields "{}"). response.completed / response.incomplete give MessageDelta + MessageStop;
// an `error` event (and the response.failed that follows it) gives exactly one Error event.
// Hosted-tool items become Opaque blocks at their output_item.done. Unknown events are ignored.
// Not thread-safe; one instance per stream.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "server/wire/codec.h"
#include "server/wire/sse.h"

namespace sluice::wire::openai_responses {

class ResponsesStreamDecoder final : public StreamDecoder {
 public:
  std::vector<StreamEvent> feed(std::string_view bytes) override;
  std::vector<StreamEvent> finish() override;

 private:
  // (output_index, content_index); content_index is -1 for items that are one block.
  using Key = std::pair<int64_t, int64_t>;

  struct Block {
    int index = 0;
    ContentBlock::Type type = ContentBlock::Type::Text;
    bool open = true;
    bool sent = false;          // some delta carried content
    int summary_parts = 0;      // Thinking: summary parts begun
    std::string signature;      // Thinking: encrypted_content from output_item.added, the fallback
  };

  void take(const SseEvent& sse, std::vector<StreamEvent>& out);
  void onItemAdded(const Json& data, std::vector<StreamEvent>& out);
  void onItemDone(const Json& data, std::vector<StreamEvent>& out);
  void onTerminal(const Json& response, std::vector<StreamEvent>& out);
  void fail(ApiError error, std::vector<StreamEvent>& out);

  void ensureStarted(const Json* response, std::vector<StreamEvent>& out);
  Block& open(Key key, ContentBlock block, std::vector<StreamEvent>& out);
  Block* find(Key key);
  void delta(Key key, StreamEvent::DeltaKind kind, std::string text, std::vector<StreamEvent>& out);
  void close(Key key, std::vector<StreamEvent>& out);
  void closeItem(int64_t output_index, std::vector<StreamEvent>& out);
  int64_t outputIndex(const Json& data) const;

  SseParser parser_;
  bool started_ = false;
  bool done_ = false;
  int next_index_ = 0;
  bool saw_function_call_ = false;
  bool saw_refusal_ = false;
  std::map<Key, Block> blocks_;
  std::map<std::string, int64_t> item_index_;  // item id -> output_index
};

}  // namespace sluice::wire::openai_responses
