#pragma once
// Checks the headers each wire requires before the body is looked at, the way the providers do:
// Anthropic `x-api-key` + `anthropic-version`, OpenAI `Authorization: Bearer`, Gemini
// `x-goog-api-key` or `?key=` (a Vertex path takes `Authorization: Bearer`). Pure.

#include <optional>
#include <string_view>

#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/received_request.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {

// Returns nullopt when the request may proceed, or the provider's own error:
// Anthropic 401 authentication_error / 400 invalid_request_error (no anthropic-version),
// OpenAI 401 invalid_request_error (no key) or invalid_api_key (wrong key),
// Gemini 403 PERMISSION_DENIED (no key) or 400 INVALID_ARGUMENT API_KEY_INVALID (wrong key).
// `expected_key`, when set, is the only key accepted.
std::optional<ErrorSpec> checkAuth(const Route& route, const ReceivedRequest& request,
                                   std::optional<std::string_view> expected_key);

}  // namespace sluice::mock
