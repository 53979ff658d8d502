// The Test button: one short prompt through exactly one deployment, bypassing routes, strategy and
// breakers (a test of an open breaker's endpoint is the point of the button). The call is audited
// with probe = true, so it is in the Requests list (with "probes") but never in usage or analytics.
#include <chrono>

#include <Poco/Exception.h>

#include "server/admin/api.h"
#include "server/wire/json_parse.h"
#include "server/audit/guard.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/pricing.h"
#include "server/http/request_id.h"
#include "server/http/upstream_call.h"
#include "server/upstream/client.h"
#include "server/wire/endpoint.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr const char* kDefaultPrompt = "Reply with one short sentence: are you there?";

std::string requestBody(catalog::Wire wire, const std::string& upstream_model, const std::string& prompt) {
  switch (wire) {
    case catalog::Wire::Anthropic:
      return json{{"model", upstream_model}, {"max_tokens", 64},
                  {"messages", {{{"role", "user"}, {"content", prompt}}}}}.dump();
    case catalog::Wire::OpenAIChat:
      return json{{"model", upstream_model}, {"max_tokens", 64},
                  {"messages", {{{"role", "user"}, {"content", prompt}}}}}.dump();
    case catalog::Wire::OpenAIResponses:
      return json{{"model", upstream_model}, {"max_output_tokens", 64}, {"input", prompt}}.dump();
    case catalog::Wire::Gemini:
      return json{{"contents", {{{"role", "user"}, {"parts", {{{"text", prompt}}}}}}},
                  {"generationConfig", {{"maxOutputTokens", 64}}}}.dump();
  }
  return "{}";
}

// The answer's text and usage, from whichever wire answered; empty when the shape is unexpected.
std::pair<std::string, wire::Usage> answerOf(catalog::Wire wire, const json& body) {
  std::string text;
  wire::Usage usage;
  const auto number = [](const json& object, const char* name) -> int64_t {
    return object.is_object() && object.contains(name) && object[name].is_number_integer() ? object[name].get<int64_t>() : 0;
  };
  if (!body.is_object()) return {text, usage};
  switch (wire) {
    case catalog::Wire::Anthropic:
      for (const auto& block : body.value("content", json::array())) {
        if (block.value("type", "") == "text") text += block.value("text", "");
      }
      usage.input_tokens = number(body.value("usage", json::object()), "input_tokens");
      usage.output_tokens = number(body.value("usage", json::object()), "output_tokens");
      break;
    case catalog::Wire::OpenAIChat:
      for (const auto& choice : body.value("choices", json::array())) {
        const auto message = choice.value("message", json::object());
        if (message.contains("content") && message["content"].is_string()) text += message["content"].get<std::string>();
      }
      usage.input_tokens = number(body.value("usage", json::object()), "prompt_tokens");
      usage.output_tokens = number(body.value("usage", json::object()), "completion_tokens");
      break;
    case catalog::Wire::OpenAIResponses:
      for (const auto& item : body.value("output", json::array())) {
        for (const auto& part : item.value("content", json::array())) {
          if (part.value("type", "") == "output_text") text += part.value("text", "");
        }
      }
      usage.input_tokens = number(body.value("usage", json::object()), "input_tokens");
      usage.output_tokens = number(body.value("usage", json::object()), "output_tokens");
      break;
    case catalog::Wire::Gemini:
      for (const auto& candidate : body.value("candidates", json::array())) {
        for (const auto& part : candidate.value("content", json::object()).value("parts", json::array())) {
          if (part.contains("text") && part["text"].is_string()) text += part["text"].get<std::string>();
        }
      }
      usage.input_tokens = number(body.value("usageMetadata", json::object()), "promptTokenCount");
      usage.output_tokens = number(body.value("usageMetadata", json::object()), "candidatesTokenCount");
      break;
  }
  return {text, usage};
}

}  // namespace

Reply probeDeployment(ConsoleContext& context, const Exchange& exchange, const Poco::Net::HTTPServerRequest& request) {
  const auto body = wire::nestsDeeperThan(exchange.body) ? json(json::value_t::discarded)
                                                        : json::parse(exchange.body, nullptr, false);
  if (!body.is_object() || !body.contains("model") || !body.contains("endpoint") || !body["model"].is_string() ||
      !body["endpoint"].is_string()) {
    return Reply::error(400, "bad_probe", "send {\"model\": \"<model id>\", \"endpoint\": \"<provider/endpoint>\"}");
  }
  const std::string model_id = body["model"].get<std::string>();
  const std::string endpoint_key = body["endpoint"].get<std::string>();
  std::string prompt = body.value("prompt", std::string(kDefaultPrompt));
  if (prompt.empty() || prompt.size() > 500) prompt = kDefaultPrompt;
  const auto catalog = context.gateway.catalog();
  const auto* deployment = catalog->deployment(model_id, endpoint_key);
  if (!deployment) return Reply::error(404, "no_such_deployment", "no deployment of " + model_id + " on " + endpoint_key);

  dispatch::Attempt attempt;
  attempt.deployment = deployment;
  attempt.endpoint = catalog->endpoint(endpoint_key);
  attempt.provider = catalog->provider(deployment->provider_id);
  attempt.credential = catalog->credential(attempt.provider->credential_id);
  attempt.paid_by = attempt.credential->kind;
  const catalog::Wire wire = attempt.endpoint->wire;

  audit::RequestAudit audit(context.gateway.audit(), http::newRequestId());
  auto& record = audit.record();
  record.probe = true;
  record.user = exchange.user;
  record.client_family = "sluice-console";
  record.client_wire = std::string(catalog::toString(wire));
  record.requested_model = model_id;
  record.model = model_id;
  record.route_id = model_id;
  record.strategy = "probe";
  record.provider = deployment->provider_id;
  record.endpoint = endpoint_key;
  record.route_match = "probe:console;deployment=" + endpoint_key;

  json out = {{"request_id", record.id}, {"model", model_id}, {"endpoint", endpoint_key}, {"prompt", prompt}};
  std::optional<std::string> personal_key;
  if (attempt.credential->kind == catalog::CredentialKind::Personal) {
    auto key = context.gateway.identity().authenticator->personalKey(exchange.user, attempt.credential->id,
                                                                     std::chrono::system_clock::now());
    if (!key) {
      record.status = 424;
      record.outcome = audit::outcome::kNoDeploymentAvailable;
      record.error_key = "personal_key_missing";
      record.error_message = key.error().message;
      out["ok"] = false;
      out["status"] = 0;
      out["error"] = "this deployment uses your personal credential " + attempt.credential->id + ": " + key.error().message;
      out["latency_ms"] = 0;
      return Reply::json(out);
    }
    personal_key = std::move(*key);
  } else if (!attempt.credential->secret) {
    record.status = 503;
    record.outcome = audit::outcome::kNoDeploymentAvailable;
    record.error_key = "credential_missing";
    record.error_message = "credential " + attempt.credential->id + " is not configured";
    out["ok"] = false;
    out["status"] = 0;
    out["error"] = record.error_message;
    out["latency_ms"] = 0;
    return Reply::json(out);
  }

  // A client wire other than the endpoint's: the console's own request headers are not protocol
  // headers to pass on.
  const catalog::Wire not_the_endpoints = wire == catalog::Wire::Anthropic ? catalog::Wire::OpenAIChat : catalog::Wire::Anthropic;
  auto call = http::buildUpstreamCall(attempt, request, not_the_endpoints,
                                      requestBody(wire, deployment->upstream_model, prompt), false);
  if (personal_key) call.headers.push_back(wire::credentialHeader(wire, *personal_key));
  const auto started = std::chrono::steady_clock::now();
  audit::AttemptRecord tried;
  tried.endpoint = endpoint_key;
  tried.provider = deployment->provider_id;
  const auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  };
  try {
    auto response = context.gateway.upstream().send(call);
    const std::string text = response->readAll();
    const int status = response->status();
    tried.status = status;
    tried.duration_ms = elapsed();
    tried.result = status / 100 == 2 ? "ok" : "status_" + std::to_string(status);
    const auto parsed = wire::nestsDeeperThan(text) ? json(json::value_t::discarded) : json::parse(text, nullptr, false);
    auto [answer, usage] = answerOf(wire, parsed);
    record.attempts.push_back(tried);
    record.status = status;
    record.upstream_ms = tried.duration_ms;
    record.ttfb_ms = tried.duration_ms;
    out["status"] = status;
    out["latency_ms"] = tried.duration_ms;
    if (status / 100 == 2) {
      record.outcome = audit::outcome::kOk;
      record.served_provider = deployment->provider_id;
      record.served_endpoint = endpoint_key;
      record.usage = usage;
      record.cost_microdollars = dispatch::costMicrodollars(deployment->pricing, usage);
      out["ok"] = true;
      out["answer"] = answer;
      out["input_tokens"] = usage.input_tokens;
      out["output_tokens"] = usage.output_tokens;
    } else {
      record.outcome = audit::outcome::kUpstreamError;
      record.error_key = "upstream_error";
      record.error_message = text.substr(0, 300);
      out["ok"] = false;
      out["error"] = text.substr(0, 500);
    }
  } catch (const upstream::TransportError& error) {
    tried.status = 0;
    tried.duration_ms = elapsed();
    tried.result = "transport:" + std::string(upstream::toString(error.failure()));
    tried.error = error.what();
    record.attempts.push_back(tried);
    record.status = 502;
    record.outcome = error.failure() == upstream::TransportFailure::Timeout ? audit::outcome::kUpstreamTimeout
                                                                            : audit::outcome::kAllDeploymentsFailed;
    record.error_key = "transport";
    record.error_message = error.what();
    out["ok"] = false;
    out["status"] = 0;
    out["latency_ms"] = tried.duration_ms;
    out["error"] = tried.result + ": " + error.what();
  }
  return Reply::json(out);
}

}  // namespace sluice::admin
