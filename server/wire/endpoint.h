#pragma once
// How each provider wire is addressed: the path appended to an endpoint's base URL and the header
// that carries the credential. Pure.

#include <string>
#include <utility>

#include "catalog/catalog.h"

namespace sluice::wire {

// anthropic: /v1/messages; openai-chat: /chat/completions; openai-responses: /responses;
// gemini: /v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse when streaming.
std::string upstreamPath(catalog::Wire wire, const std::string& upstream_model, bool stream);

// anthropic: x-api-key; openai-*: Authorization: Bearer; gemini: x-goog-api-key.
std::pair<std::string, std::string> credentialHeader(catalog::Wire wire, const std::string& secret);

}  // namespace sluice::wire
