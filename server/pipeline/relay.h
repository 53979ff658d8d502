#pragma once
// Sending a provider's answer to the client: byte for byte when both speak the same wire (usage is
// read on the way), or translated through the neutral IR. Streams are flushed event by event, and
// the upstream connection is closed the moment the client is gone.
//
// Nothing reaches the client before the provider's first body bytes have arrived: a provider that
// fails before then (reset, idle timeout) makes relay throw upstream::TransportError with nothing
// sent, so the caller may still fail over. Once bytes went out, failures end the client's stream
// with its wire's own error event instead.

#include <chrono>
#include <optional>
#include <string>

#include <Poco/Net/HTTPServerResponse.h>

#include "catalog/catalog.h"
#include "server/protection/mapping.h"
#include "server/upstream/client.h"
#include "server/wire/answer_meter.h"
#include "server/wire/codec.h"
#include "server/wire/usage.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {

struct RelayOptions {
  // Cancelled by the client watch when the client hangs up; relay then stops and reports it.
  const upstream::Cancel* cancel = nullptr;
  // Passthrough OpenAI Chat streams the gateway asked usage for on the client's behalf: the usage
  // chunk is read, then removed from what the client sees.
  bool hide_unasked_usage = false;
  // The answer of a masked attempt (relayTranslated only): the placeholders the model echoed are
  // replaced by the request's originals, in whole answers and, as they pass, in stream events
  // (protection::StreamRestorer). Null: nothing is restored. Error answers pass as they are.
  // Must outlive the relay call.
  const protection::Mapping* restore = nullptr;
  // Passthrough Responses answers to a turn the gateway's store serves: the client is shown this
  // id (the gateway's) in place of the provider's, in the whole object and in the `response` of
  // each lifecycle event (wire/openai_responses/response_id.h).
  std::optional<std::string> response_id;
};

struct RelayResult {
  int status = 0;               // the status the client was sent
  bool client_gone = false;     // the client hung up mid-answer (upstream aborted)
  bool upstream_broke = false;  // the provider's stream ended early or failed in-stream
  wire::Usage usage;
  bool usage_reported = false;
  std::string error_key;        // set when the answer was an error
  std::string error_message;
  // When the first bytes of the answer went to the client; unset when none did.
  std::optional<std::chrono::steady_clock::time_point> first_byte_at;
};

// Same wire: the body goes to the client unchanged.
RelayResult relayPassthrough(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                             catalog::Wire wire, const wire::ResponseContext& context, const RelayOptions& options);

// Different wires, or a masked attempt (options.restore): provider_wire is decoded into the IR
// and encoded as client_wire.
RelayResult relayTranslated(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                            catalog::Wire provider_wire, catalog::Wire client_wire, const wire::ResponseContext& context,
                            const RelayOptions& options);

// The other /v1 endpoints (embeddings, images, audio, moderations, rerank): a successful answer
// relayed byte for byte as it arrives (JSON, text or audio alike), with the provider's
// Content-Type, and its Content-Length when it gave one (else chunked); a JSON answer is also
// shown to `meter` (may be null) on the way. Throws TransportError, nothing sent, when the provider
// fails before its first body byte; a failure after that ends the relay with upstream_broke set
// (a client that was promised a Content-Length sees the body cut short).
RelayResult relayAsItComes(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                           const RelayOptions& options, wire::AnswerMeter* meter);

// The provider's error as a client of another wire expects it (OpenAI-style clients key their
// retry logic on the codes rate_limit_exceeded and server_is_overloaded).
wire::ApiError clientFacing(wire::ApiError error, catalog::Wire client_wire);

// A provider's error answer whose body was already read: relayed as is on the same wire (status,
// body), otherwise translated into the client's wire.
RelayResult relayErrorBody(const upstream::Response& answer, const std::string& body,
                           Poco::Net::HTTPServerResponse& response, catalog::Wire provider_wire,
                           catalog::Wire client_wire, const wire::ResponseContext& context);

}  // namespace sluice::pipeline
