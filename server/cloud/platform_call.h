#pragma once
// A call to a Vertex AI or Azure endpoint: the call the pipeline built for the endpoint's wire at
// its base URL, readdressed and reframed the way the platform takes it, and authorised with the
// header cloud_auth.h gave. The answers are the wire's own (Anthropic JSON or SSE, Gemini,
// OpenAI), so relaying, translation, retries and breakers treat them like any other.

#include <string_view>

#include "catalog/catalog.h"
#include "server/cloud/cloud_auth.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

inline constexpr std::string_view kVertexAnthropicVersion = "vertex-2023-10-16";

// Vertex AI, at base_url + /v1/projects/{project}/locations/{region}/publishers/…:
//  - wire: anthropic → anthropic/models/{model}:rawPredict, or :streamRawPredict when streaming;
//    the body loses `model`, gains `anthropic_version` (vertex-2023-10-16 unless the client sent
//    one) and the anthropic-beta header's values as `anthropic_beta`; the anthropic-version and
//    anthropic-beta headers go;
//  - wire: gemini → google/models/{model}:generateContent, or :streamGenerateContent?alt=sse.
// False (call left as it was) when the Anthropic body is not a JSON object.
bool toVertexCall(upstream::Request& call, std::string_view base_url, const catalog::Provider& provider,
                  catalog::Wire wire, std::string_view model, bool stream);

// Vertex's token count for Claude, at base_url + …/publishers/anthropic/models/count-tokens:rawPredict:
// the Messages body keeps `model` (the upstream model) and gains `anthropic_version`, as for
// rawPredict; authorised with `auth`. False (call left as it was) when the body is not a JSON object.
bool toVertexCountTokensCall(upstream::Request& call, std::string_view base_url, const catalog::Provider& provider,
                             const Header& auth);

// Azure, at base_url:
//  - openai-chat / openai-responses: the v1 API, /openai/v1/chat/completions or
//    /openai/v1/responses (the deployment name is the body's model); with the endpoint's
//    api_version, the classic API: /openai/deployments/{model}/chat/completions?api-version=… or
//    /openai/responses?api-version=…;
//  - anthropic: Claude on AI Foundry, /anthropic/v1/messages.
void toAzureCall(upstream::Request& call, std::string_view base_url, const catalog::Endpoint& endpoint,
                 std::string_view model);

// The call readdressed for its provider's platform (Vertex or Azure) and authorised with `auth`.
void toPlatformCall(upstream::Request& call, const catalog::Provider& provider, const catalog::Endpoint& endpoint,
                    std::string_view base_url, std::string_view model, bool stream, const Header& auth);

// Replaces every credential header of `call` (x-api-key, Authorization, api-key, x-goog-api-key)
// with `auth`.
void authorizeCall(upstream::Request& call, const Header& auth);

// A path segment: unreserved characters and '@' kept (Vertex model versions), the rest %XX.
std::string pathSegment(std::string_view text);

}  // namespace sluice::cloud
