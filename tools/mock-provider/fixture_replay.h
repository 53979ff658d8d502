#pragma once
// Replays recorded provider traffic (tests/fixtures, see SOURCES.md there) as a response. Pure:
// the caller reads the file.

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/mock-provider/route.h"

namespace sluice::mock {

struct Replay {
  int status = 200;
  std::string content_type = "application/json";
  bool stream = false;
  std::string body;                  // when !stream
  std::vector<std::string> frames;   // when stream: one write each
  std::vector<std::pair<std::string, std::string>> headers;  // recorded response headers worth replaying
};

// vercel-ai `*.chunks.txt`: one SSE data payload per line, replayed in the framing of `wire`
// (Anthropic and Responses add `event: <type>`, Chat ends with `data: [DONE]`, Gemini uses
// \r\n\r\n). Fails on a line that is not JSON.
std::expected<Replay, std::string> replayChunks(Wire wire, std::string_view jsonl);

// A `*.json` body, sent as is with status 200.
Replay replayJsonBody(std::string body);

// pydantic-ai VCR cassette: the response of interaction `index`: its status code, its body
// (`body.string` verbatim, `!!binary` gzip bodies inflated, or `parsed_body` re-encoded as JSON)
// and content type. An event-stream body is split into its SSE frames.
std::expected<Replay, std::string> replayCassette(std::string_view yaml_text, int index);

// Splits raw SSE text into frames, each ending with its blank-line separator ("\n\n" or
// "\r\n\r\n"); trailing text without a separator becomes the last frame (or, if blank, joins it).
std::vector<std::string> splitSseFrames(std::string_view raw);

// Picks the reader by file name: `.chunks.txt`, `.json`, `.yaml`/`.yml`.
std::expected<Replay, std::string> replayFixture(Wire wire, std::string_view file_name, std::string_view content,
                                                 int interaction);

}  // namespace sluice::mock
