#pragma once
// A call to a Bedrock endpoint (`platform: bedrock`, wire: anthropic): the Anthropic Messages call
// the pipeline built, turned into InvokeModel's (path, body, headers) and authorised (SigV4 or a
// Bedrock API key); and Bedrock's answer turned back into what an Anthropic endpoint answers, so
// relaying, translation, retries and breakers treat it like any Anthropic answer.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "server/upstream/sigv4.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

// Rewrites `call` (built for the Anthropic wire at `base_url`) into InvokeModel or
// InvokeModelWithResponseStream for `model_id`: the URL becomes base_url + /model/{id}/invoke[-with-
// response-stream]; the body loses `model` and `stream` and gains `anthropic_version` and the
// `anthropic-beta` header's values as `anthropic_beta`; the anthropic-version and anthropic-beta
// headers and any credential header go; Accept is the event stream's or JSON. False (call left as
// it was) when the body is not a JSON object.
bool toBedrockInvoke(upstream::Request& call, std::string_view base_url, std::string_view model_id, bool stream);

// Signs `call` with SigV4 for service `bedrock` in `region` at `now`: adds x-amz-date,
// x-amz-security-token (with a session token), x-amz-content-sha256 and Authorization; the
// Host, Content-Type and Accept fields are signed. The signing key is cached per day and region
// (one cache for the process). False when the URL cannot be parsed.
bool signBedrockCall(upstream::Request& call, const upstream::aws::Credentials& credentials, std::string_view region,
                     std::chrono::system_clock::time_point now);

// A Bedrock API key: `Authorization: Bearer <key>`.
void bearerBedrockCall(upstream::Request& call, std::string_view api_key);

// Bedrock's answer as an Anthropic endpoint's:
//  - an error status: the body (read here, at most 256 KiB) becomes an Anthropic error body from
//    Bedrock's message and x-amzn-errortype (ThrottlingException: rate_limit_error, and 429 even
//    if Bedrock said otherwise; ServiceUnavailableException: 503);
//  - a streamed answer (application/vnd.amazon.eventstream): read as Anthropic SSE
//    (text/event-stream), event by event. Its first event is read here: an exception first
//    (throttlingException, …) makes the answer that exception's status with an Anthropic error
//    body, so it is retried or failed over like an HTTP error; a bad frame (CRC, truncated,
//    oversized) throws TransportError{Protocol} — here, or from readSome() once bytes flowed;
//    an exception later becomes an Anthropic `error` event;
//  - x-amzn-requestid is shown as request-id.
// Throws TransportError as upstream::Response::readSome does.
//  - `converse`: a ConverseStream answer's events are handed on as `event: <type>` / `data:
//    <payload>` SSE for the bedrock-converse codec instead (errors and exceptions as above).
std::unique_ptr<upstream::Response> bedrockAnswer(std::unique_ptr<upstream::Response> inner, bool converse = false);

// Makes `call` (its URL already /model/{id}/converse[-stream], its body Converse's) ready to
// sign: no credential header of another wire, Accept the event stream's or JSON.
void toBedrockConverse(upstream::Request& call, bool stream);

}  // namespace sluice::cloud
