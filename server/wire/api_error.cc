#include "server/wire/api_error.h"

#include <nlohmann/json.hpp>

namespace sluice::wire {

using catalog::Wire;
using nlohmann::json;

ApiError ApiError::make(int status, std::string_view key, std::string message, std::string param) {
  ApiError error{status, std::string(key), std::move(message), std::nullopt, std::nullopt};
  if (!param.empty()) error.param = std::move(param);
  return error;
}

ApiError ApiError::invalidJson() { return make(400, error_keys::kInvalidJson, "request body is not valid JSON"); }

ApiError ApiError::invalidRequest(std::string message, std::string param) {
  return make(400, error_keys::kInvalidRequest, std::move(message), std::move(param));
}

ApiError ApiError::unsupportedField(std::string message, std::string param) {
  return make(400, error_keys::kUnsupportedField, std::move(message), std::move(param));
}

ApiError ApiError::upstreamInvalidResponse(std::string message) {
  return make(502, error_keys::kUpstreamInvalidResponse, std::move(message));
}

ApiError ApiError::upstreamStreamTruncated(std::string message) {
  return make(502, error_keys::kUpstreamStreamTruncated, std::move(message));
}

std::string errorTypeFor(Wire wire, int status) {
  switch (wire) {
    case Wire::Anthropic:
    case Wire::BedrockConverse:  // Bedrock's errors reach the gateway in Anthropic's shape
      switch (status) {
        case 400: return "invalid_request_error";
        case 401: return "authentication_error";
        case 402: return "billing_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 409: return "conflict_error";
        case 413: return "request_too_large";
        case 429: return "rate_limit_error";
        case 503:
        case 529: return "overloaded_error";
        case 504: return "timeout_error";
        default: return status >= 500 ? "api_error" : "invalid_request_error";
      }
    case Wire::OpenAIChat:
    case Wire::OpenAIResponses:
      switch (status) {
        case 401: return "authentication_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 413: return "invalid_request_error";
        case 429: return "rate_limit_error";
        case 503:
        case 529: return "service_unavailable_error";
        default: return status >= 500 ? "server_error" : "invalid_request_error";
      }
    case Wire::Gemini:
      switch (status) {
        case 400: return "INVALID_ARGUMENT";
        case 401: return "UNAUTHENTICATED";
        case 403: return "PERMISSION_DENIED";
        case 404: return "NOT_FOUND";
        case 409: return "ABORTED";
        case 413: return "INVALID_ARGUMENT";
        case 429: return "RESOURCE_EXHAUSTED";
        case 503:
        case 529: return "UNAVAILABLE";
        case 504: return "DEADLINE_EXCEEDED";
        default: return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
      }
    case Wire::Mcp: return status >= 500 ? "server_error" : "invalid_request";
  }
  return "api_error";
}

int jsonRpcCodeFor(const ApiError& error) {
  // JSON-RPC's reserved codes where one fits (parse error, invalid request, invalid params);
  // the gateway's own refusals in the implementation-defined server range, by class.
  if (error.key == error_keys::kInvalidJson) return -32700;
  if (error.key == error_keys::kInvalidJsonRpc) return -32600;
    if (error.key == error_keys::kInvalidParams) return -32602;
  if (error.key == error_keys::kMcpMethodNotAvailable) return -32601;
  if (error.status == 401 || error.status == 403) return -32001;
  if (error.status == 404) return -32002;
  if (error.status == 429) return -32003;
  if (error.status == 400 || error.status == 413 || error.status == 408) return -32600;
  return -32000;
}

int clientStatusFor(Wire client_wire, int upstream_status) {
  if (client_wire == Wire::Anthropic && upstream_status == 503) return 529;
  if (client_wire != Wire::Anthropic && upstream_status == 529) return 503;
  return upstream_status;
}

std::string renderError(Wire wire, const ApiError& error, const std::string& request_id) {
  const int status = clientStatusFor(wire, error.status);
  json body;
  switch (wire) {
    case Wire::Anthropic:
    case Wire::BedrockConverse: {  // never a client wire; Anthropic's shape, as its errors arrive
      json inner = {{"type", errorTypeFor(wire, status)}, {"message", error.message}};
      if (!error.key.empty()) inner["error_key"] = error.key;
      body = {{"type", "error"}, {"error", inner}};
      if (!request_id.empty()) body["request_id"] = request_id;
      break;
    }
    case Wire::OpenAIChat:
    case Wire::OpenAIResponses:
      body = {{"error",
               {{"message", error.message},
                {"type", errorTypeFor(wire, status)},
                {"param", error.param ? json(*error.param) : json(nullptr)},
                {"code", error.key.empty() ? json(nullptr) : json(error.key)}}}};
      break;
    case Wire::Gemini:
      body = {{"error", {{"code", status}, {"message", error.message}, {"status", errorTypeFor(wire, status)}}}};
      break;
    case Wire::Mcp: {  // JSON-RPC 2.0 (the MCP endpoints add the request's id)
      json data = {{"status", status}};
      if (!error.key.empty()) data["error_key"] = error.key;
      if (!request_id.empty()) data["request_id"] = request_id;
      body = {{"jsonrpc", "2.0"}, {"id", nullptr},
              {"error", {{"code", jsonRpcCodeFor(error)}, {"message", error.message}, {"data", data}}}};
      break;
    }
  }
  return body.dump();
}

}  // namespace sluice::wire
