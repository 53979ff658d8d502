// makeStreamDecoder: `alt=sse` bodies. Each `data:` event is one GenerateContentResponse; there are
// no event names and no terminal event: the stream ends when the connection closes, so finish()
// decides between a normal end (a finishReason was seen) and a truncated one.

#include <utility>

#include "server/wire/gemini/chunk_translator.h"
#include "server/wire/json_parse.h"
#include "server/wire/gemini/codec.h"
#include "server/wire/sse.h"

namespace sluice::wire::gemini {
namespace {

bool isBlank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

class GeminiStreamDecoder final : public StreamDecoder {
 public:
  std::vector<StreamEvent> feed(std::string_view bytes) override {
    std::vector<StreamEvent> out;
    for (const SseEvent& event : sse_.feed(bytes)) takeData(event.data, out);
    return out;
  }

  std::vector<StreamEvent> finish() override {
    std::vector<StreamEvent> out;
    for (const SseEvent& event : sse_.finish()) takeData(event.data, out);
    translator_.finish(/*require_finish_reason=*/true, out);
    return out;
  }

 private:
  void takeData(const std::string& data, std::vector<StreamEvent>& out) {
    if (translator_.failed() || isBlank(data) || data == "[DONE]") return;
    const Json chunk = parseBounded(data);
    if (chunk.is_discarded()) {
      translator_.fail("gemini stream event is not valid JSON", out);
      return;
    }
    translator_.take(chunk, out);
  }

  SseParser sse_;
  ChunkTranslator translator_;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<GeminiStreamDecoder>(); }

}  // namespace sluice::wire::gemini
