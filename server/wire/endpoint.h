#pragma once
// How each provider wire is addressed: the path appended to an endpoint's base URL and the header
// that carries the credential. Pure.

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "catalog/catalog.h"

namespace sluice::wire {

// anthropic: /v1/messages; openai-chat: /chat/completions; openai-responses: /responses;
// gemini: /v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse when streaming.
std::string upstreamPath(catalog::Wire wire, const std::string& upstream_model, bool stream);

// anthropic: x-api-key; openai-*: Authorization: Bearer; gemini: x-goog-api-key.
std::pair<std::string, std::string> credentialHeader(catalog::Wire wire, const std::string& secret);

// The protocol headers of `wire` a client of the same wire may pass to the provider (its API
// version and beta flags): anthropic-beta and anthropic-version; openai-beta; none for Gemini.
std::span<const std::string_view> protocolHeaders(catalog::Wire wire);

// The headers `wire` requires and what they default to when neither the provider's headers nor
// the client set them: anthropic-version 2023-06-01 on the Anthropic wire.
std::span<const std::pair<std::string_view, std::string_view>> defaultHeaders(catalog::Wire wire);

}  // namespace sluice::wire
