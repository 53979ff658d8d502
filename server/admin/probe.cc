// The Test button: one short prompt through exactly one deployment, bypassing routes, strategy and
// breakers (a test of an open breaker's endpoint is the point of the button), sent by the same
// AttemptRunner as every request. The call is audited with probe = true, so it is in the Requests
// list (with "probes") but never in usage, analytics or the request metrics.
#include <chrono>

#include <Poco/Exception.h>

#include "server/admin/api.h"
#include "server/wire/json_parse.h"
#include "server/audit/outcome.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/pricing.h"
#include "server/pipeline/admission.h"
#include "server/dispatch/target_check.h"
#include "server/pipeline/attempt_runner.h"
#include "server/http/request_id.h"
#include "server/pipeline/request_ledger.h"
#include "server/upstream/client.h"
#include "server/wire/codec.h"

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

// The answer's text and usage, read by the answering wire's own decoder; empty when it does not decode.
std::pair<std::string, wire::Usage> answerOf(catalog::Wire wire, const std::string& body) {
  std::string text;
  auto decoded = wire::decodeResponse(wire, body);
  if (!decoded) return {text, {}};
  for (const auto& block : decoded->content) {
    if (block.type == wire::ContentBlock::Type::Text) text += block.text;
  }
  return {text, decoded->usage};
}

}  // namespace

Reply probeDeployment(ConsoleContext& context, const Exchange& exchange, const Poco::Net::HTTPServerRequest&) {
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

  pipeline::RequestLedger ledger(context.gateway, http::newRequestId(), "/admin/api/probe", wire,
                            pipeline::RequestLedger::Kind::Probe);
  auto& record = ledger.row();
  record.user = exchange.user;
  record.client_family = "sluice-console";
  record.requested_model = model_id;
  record.model = model_id;
  record.route_id = model_id;
  record.strategy = "probe";
  record.provider = deployment->provider_id;
  record.endpoint = endpoint_key;
  record.route_match = "probe:console;deployment=" + endpoint_key;

  json out = {{"request_id", record.id}, {"model", model_id}, {"endpoint", endpoint_key}, {"prompt", prompt}};
  const auto failed = [&](int status, const std::string& key, const std::string& message, audit::Outcome outcome,
                          const std::string& shown, int64_t latency_ms) {
    ledger.refused(wire::ApiError::make(status, key, message), outcome);
    out["ok"] = false;
    out["status"] = 0;
    out["error"] = shown;
    out["latency_ms"] = latency_ms;
    return Reply::json(out);
  };
  // The probe bypasses routes, strategy and breakers (testing an open breaker's endpoint is the
  // point of the button) and sends nothing of the console's own request upstream.
  upstream::Cancel cancel;
  pipeline::AttemptRunner runner(context.gateway.upstream(), context.gateway.endpoints(), ledger, cancel,
                             pipeline::personalKeys(context.gateway, exchange.user));
  if (auto unbound = runner.bind(attempt, false)) {
    if (attempt.credential->kind == catalog::CredentialKind::Personal) {
      return failed(424, std::string(wire::error_keys::kPersonalKeyMissing), unbound->reason, audit::Outcome::NoDeploymentAvailable,
                    "this deployment uses your personal credential " + attempt.credential->id + ": " + unbound->reason,
                    0);
    }
    const std::string message = "credential " + attempt.credential->id + " is not configured";
    return failed(503, std::string(wire::error_keys::kCredentialMissing), message, audit::Outcome::NoDeploymentAvailable, message, 0);
  }
  pipeline::AttemptCall call{&attempt, requestBody(wire, deployment->upstream_model, prompt), false, "", wire, nullptr};
  if (attempt.endpoint->url.empty() && attempt.endpoint->presence_node) {
    // An own machine without a url is reached at the address its hub reports, up or not: the
    // button tests the machine, as it tests an endpoint whose breaker is open.
    const auto presence = context.gateway.presence().snapshot();
    const auto node = presence.nodes.find(*attempt.endpoint->presence_node);
    if (node == presence.nodes.end() || node->second.host.empty() || node->second.port <= 0) {
      const std::string message = "the presence hub reports no address for node '" + *attempt.endpoint->presence_node +
                                  "', and the endpoint declares no url";
      return failed(503, std::string(wire::error_keys::kNoDeploymentAvailable), message,
                    audit::Outcome::NoDeploymentAvailable, message, 0);
    }
    call.base_url = dispatch::presenceBaseUrl(wire, node->second.host, node->second.port);
  }
  call.ask_breaker = false;
  call.single_try = true;
  pipeline::AttemptResult result = runner.send(std::move(call));
  if (auto* sent = std::get_if<pipeline::Failed>(&result)) {
    const bool timed_out = sent->outcome.transport == dispatch::TransportKind::Timeout;
    const auto& attempts = record.attempts;
    const std::string shown = attempts.empty() ? sent->reason : attempts.back().result + ": " + attempts.back().error;
    return failed(502, std::string(wire::error_keys::kTransport), sent->error.message,
                  timed_out ? audit::Outcome::UpstreamTimeout : audit::Outcome::AllDeploymentsFailed, shown,
                  ledger.upstreamMs());
  }
  auto& answered = std::get<pipeline::Answer>(result);
  const int status = answered.response->status();
  std::string text = answered.error_body;
  pipeline::RelayResult relayed;
  try {
    while (status < 400 && text.size() < pipeline::kMaxErrorBody && answered.response->readSome(text)) {
    }
  } catch (const upstream::TransportError& failure) {
    runner.relayFailed(attempt, answered, failure);
    return failed(502, std::string(wire::error_keys::kTransport), failure.what(), audit::Outcome::AllDeploymentsFailed,
                  std::string("transport: ") + failure.what(), ledger.upstreamMs());
  }
  relayed.status = status;
  runner.relayed(attempt, answered, relayed);
  auto [answer, usage] = answerOf(wire, text);
  out["status"] = status;
  out["latency_ms"] = ledger.upstreamMs();
  if (status / 100 == 2) {
    relayed.usage = usage;
    relayed.usage_reported = true;
    relayed.first_byte_at = std::chrono::steady_clock::now();
    ledger.served(attempt, relayed, dispatch::chargeFor(deployment->pricing, usage));
    out["ok"] = true;
    out["answer"] = answer;
    out["input_tokens"] = usage.input_tokens;
    out["output_tokens"] = usage.output_tokens;
  } else {
    relayed.error_key = wire::error_keys::kUpstreamError;
    relayed.error_message = text.substr(0, 300);
    ledger.served(attempt, relayed, {});
    out["ok"] = false;
    out["error"] = text.substr(0, 500);
  }
  return Reply::json(out);
}

}  // namespace sluice::admin
