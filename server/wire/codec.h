#pragma once
// One codec per wire, behind one interface. Pure: strings in, values or strings out; never
// throws on bad input (a decoder returns an ApiError naming the field at fault, status 400).
//
// Which functions a wire implements:
//                      decodeRequest  encodeRequest  decodeResponse  encodeResponse  streams
//   anthropic          client         provider       provider        client          both
//   openai-chat        client         provider       provider        client          both
//   openai-responses   client         provider       provider        client          both
//   gemini             -              provider       provider        -               decoder only
// (Gemini is never a client wire; its client-side functions return a 400 / empty string.)

#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "server/wire/api_error.h"
#include "server/wire/ir.h"
#include "server/wire/retry_after.h"

namespace sluice::wire {

struct EncodeOptions {
  std::string upstream_model;        // the model name the provider expects
  int64_t default_max_tokens = 4096; // used when the request has none and the wire requires one
  std::optional<int64_t> max_output; // the model's ceiling: max_tokens above it is clamped
};

// What an encoder needs to describe the answer to the client.
struct ResponseContext {
  std::string model;       // the model id the client asked for (shown back to it)
  std::string request_id;  // the gateway's request id (used to mint response ids when needed)
  int64_t created = 0;     // unix seconds, passed in (codecs never read the clock)
  // OpenAI Chat streams: whether the client asked for the usage chunk (stream_options.
  // include_usage). OpenAI sends it only when asked; clients that read choices[0] of every chunk
  // break on an unasked one. Other wires always carry usage.
  bool include_usage = true;
};

// Incremental reader of a provider's streamed body (SSE framing included). Feed bytes as they
// arrive, in pieces split anywhere; take the neutral events out.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual std::vector<StreamEvent> feed(std::string_view bytes) = 0;
  // The connection ended: flushes what is pending. A stream that ended without its terminal
  // event yields an Error event (status 502, key "upstream_stream_truncated").
  virtual std::vector<StreamEvent> finish() = 0;
};

// Writer of the client's streamed body: each call returns the bytes to send (possibly empty),
// SSE framing included, so the handler can flush after every event.
class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  virtual std::string encode(const StreamEvent& event) = 0;
  // The upstream ended: closes any open blocks/terminal events the client format requires
  // (e.g. OpenAI Chat's "data: [DONE]"). Safe to call once, after the last encode().
  virtual std::string finish() = 0;
};

std::expected<Request, ApiError> decodeRequest(catalog::Wire wire, std::string_view body);
std::expected<std::string, ApiError> encodeRequest(catalog::Wire wire, const Request& request,
                                                   const EncodeOptions& options);
std::expected<Response, ApiError> decodeResponse(catalog::Wire wire, std::string_view body);

// The usage of a whole (not streamed) answer, read without decoding the answer (json_scan.h):
// the same figures decodeResponse gives. nullopt when it cannot be read that way (Gemini, whose
// usage needs the candidates; a body that does not walk as one object): decode instead.
struct UsageReading {
  Usage usage;
  bool reported = false;
};
std::optional<UsageReading> scanResponseUsage(catalog::Wire wire, std::string_view body);
std::string encodeResponse(catalog::Wire wire, const Response& response, const ResponseContext& context);
std::unique_ptr<StreamDecoder> makeStreamDecoder(catalog::Wire wire);
std::unique_ptr<StreamEncoder> makeStreamEncoder(catalog::Wire wire, const ResponseContext& context);

// A provider's error answer as a neutral ApiError: status kept, message taken from the body,
// key from its type/code/status; retry_after_seconds from Gemini's RetryInfo, else from the
// Retry-After header as parseRetryAfter(retry_after_header, now) reads it (retry_after.h).
ApiError decodeError(catalog::Wire wire, int status, std::string_view body, std::string_view retry_after_header,
                     SystemTime now);

}  // namespace sluice::wire
