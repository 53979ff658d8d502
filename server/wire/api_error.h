#pragma once
// An error the gateway answers with, and how each client wire spells it.
// Pure: strings in, strings out.

#include <optional>
#include <string>

#include "catalog/catalog.h"

namespace sluice::wire {

struct ApiError {
  int status = 500;
  std::string key;      // stable error key, public API: "model_not_found", "context_window_exceeded", ...
  std::string message;  // human-readable, names the offending value
  std::optional<std::string> param;       // the request field at fault, when there is one
  std::optional<int> retry_after_seconds; // copied to Retry-After
};

// The body of an error response in the given client wire's shape:
//   anthropic:                {"type":"error","error":{"type":..,"message":..,"error_key":..},"request_id":..}
//   openai-chat / responses:  {"error":{"message":..,"type":..,"param":..,"code":<key>}}
//   gemini:                   {"error":{"code":<status>,"message":..,"status":..}}
std::string renderError(catalog::Wire wire, const ApiError& error, const std::string& request_id);

// The wire's error type for an HTTP status ("rate_limit_error", "overloaded_error", "RESOURCE_EXHAUSTED" ...).
std::string errorTypeFor(catalog::Wire wire, int status);

// The HTTP status a client of this wire should see for an upstream status: Anthropic's 529 is 503
// for OpenAI-style clients, and a 503 becomes 529 for Anthropic clients.
int clientStatusFor(catalog::Wire client_wire, int upstream_status);

}  // namespace sluice::wire
