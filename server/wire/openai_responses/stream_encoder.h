#pragma once
// Writer of the Responses event stream a Codex or Responses-API client reads, from neutral stream
// events. Each call returns the SSE bytes for that event at once; nothing waits for the answer to
// end. The encoder keeps a copy of what it has sent (item text, arguments, summaries) only to write
// the `.done` events and the final response object, which repeat it.
//
// Sequence: response.created + response.in_progress at MessageStart; per Text block a message
// item (output_item.added, content_part.added, output_text.delta..., output_text.done,
// content_part.done, output_item.done); per ToolUse a function_call item with argument deltas;
// per Thinking a reasoning item with summary deltas and the signature as encrypted_content (in the
// signature envelope when another wire minted it); then response.completed, or response.incomplete for MaxTokens/Refusal. An Error
// event becomes `error` + `response.failed`. sequence_number starts at 0 and grows by 1; ids are
// minted from the context's request id and the output index. Not thread-safe.

#include <map>
#include <optional>
#include <string>

#include "server/wire/codec.h"

namespace sluice::wire::openai_responses {

class ResponsesStreamEncoder final : public StreamEncoder {
 public:
  explicit ResponsesStreamEncoder(ResponseContext context);
  std::string encode(const StreamEvent& event) override;
  std::string finish() override;

 private:
  struct Item {
    ContentBlock block;         // as started: type, tool id/name, signature wire
    size_t output_index = 0;
    std::string id;
    std::string text;           // Text: the text; ToolUse: the arguments; Thinking: the summary
    std::string signature;      // Thinking
    bool summary_open = false;  // Thinking: reasoning_summary_part.added sent
    bool done = false;
  };

  std::string frame(std::string_view type, Json payload);
  std::string start(const StreamEvent* event);
  std::string blockStart(int index, const ContentBlock& block);
  std::string blockDelta(const StreamEvent& event);
  std::string blockStop(int index);
  std::string closeAll();
  std::string terminal();
  std::string failure(const ApiError& error);
  Json responseJson(const std::string& status, const std::string& incomplete_reason, Json error) const;
  void takeUsage(const StreamEvent& event);

  ResponseContext context_;
  std::string response_id_;
  int64_t sequence_ = 0;
  bool started_ = false;
  bool terminated_ = false;
  std::map<int, Item> items_;  // IR block index -> the item it became
  Json output_ = Json::array();  // items by output_index, as last sent
  std::optional<StopReason> stop_;
  Usage usage_;
  bool usage_reported_ = false;
};

}  // namespace sluice::wire::openai_responses
