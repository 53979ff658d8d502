#pragma once
// Building the HTTP call to one deployment.

#include <string>

#include "server/dispatch/attempt.h"
#include "server/upstream/client.h"
#include "server/upstream/sigv4.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {


// The call for `attempt`: the endpoint's URL + the wire's path (or `path` when given), the
// provider's headers and user agent, and the credential: the platform's secret, or `personal_key`
// when given (the member's own key for a personal credential). The caller's own Authorization /
// x-api-key never pass. When `client` is given and speaks the provider's wire its protocol headers
// (anthropic-beta, anthropic-version, openai-beta) do, and so do the headers the provider lists in
// forward_headers. `base_url`, when not empty, replaces the endpoint's URL (an own machine at the
// address its presence hub reports, dispatch/target_check.h). `content_type` is the body's ("" =
// application/json); `accept` the Accept field ("" = what the wire's answer is: text/event-stream
// when streaming, else application/json). `body` is sent byte for byte as given (the attempt
// runner takes it back from the request after the send, for a retry), except on a
// `platform: bedrock` provider: the call is then made InvokeModel's (cloud/bedrock_call.h), its
// body rewritten, signed with `aws_keys` (SigV4, at the current time) when given, else sent with
// the secret or personal key as a Bedrock API key (Authorization: Bearer).
upstream::Request buildUpstreamCall(const dispatch::Attempt& attempt, const Request* client, catalog::Wire client_wire,
                                    std::string body, bool stream, const std::string& path = "",
                                    const std::string* personal_key = nullptr, const std::string& base_url = "",
                                    const std::string& content_type = "", const std::string& accept = "",
                                    const upstream::aws::Credentials* aws_keys = nullptr);

}  // namespace sluice::pipeline
