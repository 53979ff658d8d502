#include "tools/mock-provider/error_spec.h"

#include <nlohmann/json.hpp>

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

std::string anthropicType(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 409: return "conflict_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 504: return "timeout_error";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string anthropicMessage(int status) {
  switch (status) {
    case 401: return "invalid x-api-key";
    case 404: return "Not found";
    case 429: return "Number of request tokens has exceeded your per-minute rate limit";
    case 529: return "Overloaded";
    default: return status >= 500 ? "Internal server error" : "Invalid request";
  }
}

struct OpenAiDefaults {
  std::string type;
  std::optional<std::string> code;
  std::string message;
};

OpenAiDefaults openAiDefaults(int status) {
  switch (status) {
    case 400: return {"invalid_request_error", std::nullopt, "Invalid request."};
    case 401:
      return {"invalid_request_error", "invalid_api_key", "Incorrect API key provided."};
    case 403:
      return {"request_forbidden", "unsupported_country_region_territory",
              "Country, region, or territory not supported"};
    case 404:
      return {"invalid_request_error", "model_not_found",
              "The model does not exist or you do not have access to it."};
    case 429:
      return {"requests", "rate_limit_exceeded",
              "Rate limit reached for requests. Please try again in 1s."};
    case 500:
      return {"server_error", std::nullopt, "The server had an error while processing your request. Sorry about that!"};
    case 503:
      return {"service_unavailable_error", "server_is_overloaded",
              "The server is overloaded or not ready yet."};
    default:
      if (status >= 500) return {"server_error", std::nullopt, "The server had an error while processing your request."};
      return {"invalid_request_error", std::nullopt, "Invalid request."};
  }
}

std::string geminiStatus(int status) {
  switch (status) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 500: return "INTERNAL";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

std::string geminiMessage(int status) {
  switch (status) {
    case 404: return "models/unknown is not found for API version v1beta, or is not supported for generateContent.";
    case 429: return "You exceeded your current quota, please check your plan and billing details.";
    case 500: return "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting";
    case 503: return "The model is overloaded. Please try again later.";
    case 504: return "Deadline expired before operation could complete.";
    default: return "Request contains an invalid argument.";
  }
}

void applyOverrides(ErrorSpec& error, const Script& script) {
  if (script.error_type) error.type = *script.error_type;
  if (script.error_message) error.message = *script.error_message;
  if (script.error_code) error.code = *script.error_code;
}

}  // namespace

ErrorSpec errorForStatus(Wire wire, int status, const Script& script) {
  ErrorSpec error;
  error.status = status;
  switch (wire) {
    case Wire::Anthropic:
      error.type = anthropicType(status);
      error.message = anthropicMessage(status);
      break;
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses: {
      auto defaults = openAiDefaults(status);
      error.type = defaults.type;
      error.code = defaults.code;
      error.message = defaults.message;
      break;
    }
    case Wire::Gemini:
      error.type = geminiStatus(status);
      error.message = geminiMessage(status);
      if (script.retry_after) error.retry_delay = *script.retry_after + "s";
      break;
  }
  applyOverrides(error, script);
  return error;
}

ErrorSpec inStreamErrorFor(Wire wire, const Script& script) {
  ErrorSpec error;
  switch (wire) {
    case Wire::Anthropic:
      error.status = 529;
      error.type = "overloaded_error";
      error.message = "Overloaded";
      break;
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses:
      error.status = 500;
      error.type = "server_error";
      error.code = "server_error";
      error.message = "The server had an error while processing your request. Sorry about that!";
      break;
    case Wire::Gemini:
      error.status = 503;
      error.type = "UNAVAILABLE";
      error.message = "The model is overloaded. Please try again later.";
      break;
  }
  if (script.status && *script.status >= 400) error.status = *script.status;
  applyOverrides(error, script);
  return error;
}

std::string renderErrorBody(Wire wire, const ErrorSpec& error, std::string_view request_id) {
  Json body;
  switch (wire) {
    case Wire::Anthropic:
      body["type"] = "error";
      body["error"] = Json{{"type", error.type}, {"message", error.message}};
      body["request_id"] = request_id;
      break;
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses:
      body["error"] = Json{{"message", error.message},
                           {"type", error.type},
                           {"param", error.param ? Json(*error.param) : Json(nullptr)},
                           {"code", error.code ? Json(*error.code) : Json(nullptr)}};
      break;
    case Wire::Gemini: {
      Json inner{{"code", error.status}, {"message", error.message}, {"status", error.type}};
      Json details = Json::array();
      if (error.reason)
        details.push_back(Json{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                               {"reason", *error.reason},
                               {"domain", "googleapis.com"}});
      if (error.retry_delay)
        details.push_back(Json{{"@type", "type.googleapis.com/google.rpc.RetryInfo"}, {"retryDelay", *error.retry_delay}});
      if (!details.empty()) inner["details"] = details;
      body["error"] = inner;
      break;
    }
  }
  return body.dump();
}

std::string reasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "Status " + std::to_string(status);
  }
}

}  // namespace sluice::mock
