#include "tools/mock-provider/cloud_request.h"

#include <expected>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/error_spec.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kVertexAnthropicVersion = "vertex-2023-10-16";

std::optional<std::string> bearer(const ReceivedRequest& request) {
  const auto header = findHeader(request.headers, "authorization");
  if (!header || !header->starts_with("Bearer ") || header->size() <= 7) return std::nullopt;
  return header->substr(7);
}

CloudRefusal googleRefusal(int status, const char* type, std::string message, std::optional<std::string> reason = {}) {
  ErrorSpec error;
  error.status = status;
  error.type = type;
  error.message = std::move(message);
  error.reason = std::move(reason);
  return {status, renderErrorBody(Wire::Gemini, error, ""), error.type + ": " + error.message};
}

CloudRefusal anthropicRefusal(std::string message) {
  ErrorSpec error;
  error.type = "invalid_request_error";
  error.message = std::move(message);
  return {400, renderErrorBody(Wire::Anthropic, error, "req_vertex_mock"), "vertex: " + error.message};
}

CloudRefusal azureRefusal(int status, std::string message) {
  const std::string body = Json{{"error", Json{{"code", std::to_string(status)}, {"message", message}}}}.dump();
  return {status, body, "azure: " + message};
}

// Vertex's rawPredict body as the Messages request it stands for, or Vertex's refusal.
std::expected<std::string, CloudRefusal> vertexMessagesBody(const Route& route, const std::string& text) {
  Json body = Json::parse(text, nullptr, false);
  if (!body.is_object()) return std::unexpected(anthropicRefusal("The request body is not a JSON object"));
  const bool count = route.endpoint == Endpoint::CountTokens;  // count-tokens:rawPredict names its model
  if (count && !body.contains("model")) return std::unexpected(anthropicRefusal("model: Field required"));
  if (!count && body.contains("model")) return std::unexpected(anthropicRefusal("model: Extra inputs are not permitted"));
  if (!body.contains("anthropic_version")) return std::unexpected(anthropicRefusal("anthropic_version: Field required"));
  if (body["anthropic_version"] != kVertexAnthropicVersion) {
    return std::unexpected(anthropicRefusal("anthropic_version: Input should be 'vertex-2023-10-16'"));
  }
  if (body.contains("anthropic_beta") && !body["anthropic_beta"].is_array()) {
    return std::unexpected(anthropicRefusal("anthropic_beta: Input should be a valid list"));
  }
  body.erase("anthropic_version");
  body.erase("anthropic_beta");
  if (!count) body["model"] = route.model;
  if (route.raw_stream) body["stream"] = true;
  return body.dump();
}

CloudCheck checkVertex(const Route& route, const ReceivedRequest& request, const TokenRing& tokens,
                       std::chrono::system_clock::time_point now) {
  CloudCheck check;
  check.vertex = true;
  const auto token = bearer(request);
  const auto found = token ? tokens.check(*token, now) : TokenRing::Found::Unknown;
  if (found != TokenRing::Found::Valid) {
    check.refusal = googleRefusal(401, "UNAUTHENTICATED",
                                  "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                                  "login cookie or other valid authentication credential.",
                                  found == TokenRing::Found::Expired ? "ACCESS_TOKEN_EXPIRED" : "ACCESS_TOKEN_TYPE_UNSUPPORTED");
    return check;
  }
  if (route.wire == Wire::Anthropic) {
    auto body = vertexMessagesBody(route, request.body);
    if (!body) check.refusal = body.error();
    else check.messages_body = std::move(*body);
  }
  return check;
}

bool classicPath(const ReceivedRequest& request) {
  const auto at = request.path.find("/openai/");
  return at != std::string::npos && request.path.compare(at, 11, "/openai/v1/") != 0;
}

}  // namespace

CloudCheck checkCloudRequest(const Route& route, const ReceivedRequest& request,
                             const std::optional<std::string>& api_key, const TokenRing& google_tokens,
                             const TokenRing& entra_tokens, std::chrono::system_clock::time_point now) {
  if (route.vertex) return checkVertex(route, request, google_tokens, now);
  CloudCheck check;
  const auto key = findHeader(request.headers, "api-key");
  const auto token = bearer(request);
  const bool entra = token && entra_tokens.owns(*token);
  check.azure = key.has_value() || entra || request.path.find("/openai/deployments/") != std::string::npos;
  if (!check.azure) return check;
  if (entra) {
    if (entra_tokens.check(*token, now) != TokenRing::Found::Valid) {
      check.refusal = azureRefusal(401, "Unauthorized. Access token is missing, invalid, audience is incorrect "
                                        "(https://cognitiveservices.azure.com), or have expired.");
      return check;
    }
  } else if (!key || key->empty() || (api_key && *key != *api_key)) {
    check.refusal = azureRefusal(401, "Access denied due to invalid subscription key or wrong API endpoint. Make "
                                      "sure to provide a valid key for an active subscription and use a correct "
                                      "regional API endpoint for your resource.");
    return check;
  }
  if (classicPath(request) && findQueryParam(request.query, "api-version").value_or("").empty()) {
    check.refusal = azureRefusal(404, "Resource not found");
    return check;
  }
  if (route.wire == Wire::Anthropic && findHeader(request.headers, "anthropic-version").value_or("").empty()) {
    check.refusal = anthropicRefusal("anthropic-version: header is required");
  }
  return check;
}

std::string azureErrorBody(int status, const Script& script) {
  const std::string code = script.error_code.value_or(std::to_string(status));
  if (code == "content_filter") {
    const Json filtered{{"filtered", true}, {"severity", "high"}};
    const Json clean{{"filtered", false}, {"severity", "safe"}};
    return Json{{"error",
                 Json{{"message", script.error_message.value_or(
                                      "The response was filtered due to the prompt triggering Azure OpenAI's content "
                                      "management policy. Please modify your prompt and retry.")},
                      {"type", nullptr},
                      {"param", "prompt"},
                      {"code", "content_filter"},
                      {"status", status},
                      {"innererror", Json{{"code", "ResponsibleAIPolicyViolation"},
                                          {"content_filter_result", Json{{"hate", clean},
                                                                         {"jailbreak", Json{{"filtered", false}, {"detected", false}}},
                                                                         {"self_harm", clean},
                                                                         {"sexual", clean},
                                                                         {"violence", filtered}}}}}}}}
        .dump();
  }
  const std::string message =
      script.error_message.value_or(status == 429 ? "Requests to the ChatCompletions_Create Operation have exceeded "
                                                    "the token rate limit of your current tier. Please retry after 1 "
                                                    "second."
                                                  : "The Azure OpenAI service answered HTTP " + std::to_string(status));
  return Json{{"error", Json{{"code", code}, {"message", message}}}}.dump();
}

std::string azurePromptFilterFrame() {
  const Json clean{{"filtered", false}, {"severity", "safe"}};
  const Json chunk{{"choices", Json::array()},
                   {"created", 0},
                   {"id", ""},
                   {"model", ""},
                   {"object", ""},
                   {"prompt_filter_results",
                    Json::array({Json{{"prompt_index", 0},
                                      {"content_filter_results", Json{{"hate", clean},
                                                                      {"self_harm", clean},
                                                                      {"sexual", clean},
                                                                      {"violence", clean}}}}})}};
  return "data: " + chunk.dump() + "\n\n";
}

}  // namespace sluice::mock
