#pragma once
// An error the gateway answers with, and how each client wire spells it.
// Pure: strings in, strings out.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "server/wire/error_keys.h"

namespace sluice::wire {

struct ApiError {
  int status = 500;
  std::string key;      // stable error key, public API: "model_not_found", "context_window_exceeded", ...
  std::string message;  // human-readable, names the offending value
  std::optional<std::string> param;       // the request field at fault, when there is one
  std::optional<int> retry_after_seconds; // copied to Retry-After

  // The one way the pure core builds an error: arguments in field order (status, key, message,
  // then the optional param; "" means no param). `key` is one of error_keys.h, or a provider's.
  // The aggregate stays usable as {status, key, message, param, retry_after_seconds}.
  static ApiError make(int status, std::string_view key, std::string message, std::string param = {});

  // Named forms of make() for the errors every codec answers with; the same order (message, then
  // param).
  static ApiError invalidJson();                                                     // 400 invalid_json
  static ApiError invalidRequest(std::string message, std::string param = {});       // 400 invalid_request
  static ApiError unsupportedField(std::string message, std::string param = {});     // 400 unsupported_field
  static ApiError upstreamInvalidResponse(std::string message);                      // 502 upstream_invalid_response
  static ApiError upstreamStreamTruncated(std::string message);                      // 502 upstream_stream_truncated
};

// The body of an error response in the given client wire's shape:
//   anthropic:                {"type":"error","error":{"type":..,"message":..,"error_key":..},"request_id":..}
//   openai-chat / responses:  {"error":{"message":..,"type":..,"param":..,"code":<key>}}
//   gemini:                   {"error":{"code":<status>,"message":..,"status":..}}
std::string renderError(catalog::Wire wire, const ApiError& error, const std::string& request_id);

// The wire's error type for an HTTP status ("rate_limit_error", "overloaded_error", "RESOURCE_EXHAUSTED" ...).
std::string errorTypeFor(catalog::Wire wire, int status);

// The JSON-RPC error code an MCP client is answered with for `error`: -32700 unparseable JSON,
// -32600 an invalid message or request, -32602 bad params; the gateway's
// refusals: -32001 authentication or access, -32002 not found, -32003 rate or quota, -32000 the
// rest (an upstream failure). The HTTP status and the error key travel in the error's `data`.
int jsonRpcCodeFor(const ApiError& error);

// The HTTP status a client of this wire should see for an upstream status: Anthropic's 529 is 503
// for OpenAI-style clients, and a 503 becomes 529 for Anthropic clients.
int clientStatusFor(catalog::Wire client_wire, int upstream_status);

}  // namespace sluice::wire
