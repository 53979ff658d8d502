#include "server/endpoints/mcp_federation.h"

#include <algorithm>

#include "server/http/gateway.h"
#include "server/pipeline/admission.h"
#include "server/pipeline/attempt_runner.h"
#include "server/wire/json_parse.h"
#include "server/wire/mcp/jsonrpc.h"

namespace sluice::endpoints::federation {

namespace {

// The largest answer read from one server during a fan-out.
constexpr size_t kMaxReplyBytes = 8u << 20;

std::string lower(std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The JSON-RPC response to `id` in a JSON body or among an SSE body's events.
std::optional<wire::Json> responseIn(const std::string& body, bool sse, const wire::Json& id) {
  const auto matches = [&](const wire::Json& message) {
    return message.is_object() && !message.contains("method") && message.contains("id") && message["id"] == id;
  };
  if (!sse) {
    wire::Json message = wire::parseBounded(body);
    if (matches(message)) return message;
    return std::nullopt;
  }
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find("\n\n", start);
    if (end == std::string::npos) end = body.size();
    std::string data;
    size_t line_start = start;
    while (line_start < end) {
      size_t line_end = body.find('\n', line_start);
      if (line_end == std::string::npos || line_end > end) line_end = end;
      std::string_view line(body.data() + line_start, line_end - line_start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line.starts_with("data:")) {
        line.remove_prefix(5);
        if (line.starts_with(' ')) line.remove_prefix(1);
        if (!data.empty()) data += '\n';
        data += line;
      }
      line_start = line_end + 1;
    }
    if (!data.empty()) {
      wire::Json message = wire::parseBounded(data);
      if (matches(message)) return message;
    }
    start = end + 2;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Reply> fanOut(pipeline::Exchange& exchange, const std::vector<Server>& servers,
                          const std::map<std::string, std::string>& sessions, const std::string& body,
                          const wire::Json& id, const std::string& protocol_version, const std::string& method) {
  http::Gateway& gateway = exchange.gateway();
  const auto catalog = gateway.catalog();
  upstream::Cancel cancel;
  const http::HangUpGuard watching = exchange.request().watchHangUp(cancel);
  pipeline::AttemptRunner runner(gateway.upstream(), gateway.endpoints(), exchange.ledger(), cancel,
                                 pipeline::personalKeys(gateway, exchange.member()));
  std::vector<Reply> replies;
  for (const Server& server : servers) {
    if (cancel.cancelled()) break;
    Reply reply;
    reply.provider = server.provider;
    catalog::Model model;
    model.id = "mcp:" + server.provider;
    catalog::Deployment deployment;
    deployment.model_id = model.id;
    deployment.endpoint_key = server.endpoint->key;
    deployment.provider_id = server.provider;
    deployment.endpoint_id = server.endpoint->id;
    dispatch::Attempt attempt;
    attempt.deployment = &deployment;
    attempt.model = &model;
    attempt.endpoint = server.endpoint;
    attempt.provider = server.definition;
    attempt.credential = catalog->credentialOf(*server.endpoint);
    if (attempt.credential) attempt.paid_by = attempt.credential->kind;
    pipeline::AttemptCall call{&attempt, body, false, "", catalog::Wire::Mcp, &exchange.request()};
    call.method = method;
    call.accept = "application/json, text/event-stream";
    call.field_retry = false;
    if (const auto session = sessions.find(server.provider); session != sessions.end() && !session->second.empty()) {
      call.headers.emplace_back("Mcp-Session-Id", session->second);
    }
    if (!protocol_version.empty()) call.headers.emplace_back("MCP-Protocol-Version", protocol_version);
    pipeline::AttemptResult result = runner.run(std::move(call));
    if (std::holds_alternative<pipeline::ClientGone>(result)) break;
    if (const auto* failed = std::get_if<pipeline::Failed>(&result)) {
      reply.error = failed->stage == pipeline::Failed::Stage::Sent ? failed->error.message : failed->reason;
      replies.push_back(std::move(reply));
      continue;
    }
    pipeline::Answer& answer = std::get<pipeline::Answer>(result);
    const std::string session = answer.response->header("Mcp-Session-Id");
    if (wire::mcp::validSessionId(session)) reply.session = session;
    const int status = answer.response->status();
    if (status >= 400) {
      reply.error = "HTTP " + std::to_string(status) + ": " + answer.error_body.substr(0, 200);
    } else if (!id.is_null()) {
      std::string text;
      try {
        while (text.size() <= kMaxReplyBytes && answer.response->readSome(text)) {
        }
        if (text.size() > kMaxReplyBytes) {
          answer.response->abort();
          reply.error = "the answer is larger than " + std::to_string(kMaxReplyBytes) + " bytes";
        } else {
          const bool sse = lower(answer.response->header("Content-Type")).starts_with("text/event-stream");
          reply.message = responseIn(text, sse, id);
          if (!reply.message) reply.error = "the server sent no answer to the message";
        }
      } catch (const upstream::TransportError& failure) {
        reply.error = failure.what();
      }
    }
    pipeline::RelayResult relayed;
    relayed.status = status;
    runner.relayed(attempt, answer, relayed);
    replies.push_back(std::move(reply));
  }
  return replies;
}

std::string encodeSessions(const std::map<std::string, std::string>& sessions) {
  wire::Json object = wire::Json::object();
  for (const auto& [provider, session] : sessions) object[provider] = session;
  return object.dump();
}

std::optional<std::map<std::string, std::string>> decodeSessions(std::string_view text) {
  const wire::Json object = wire::parseBounded(text);
  if (!object.is_object() || object.size() > kMaxServers) return std::nullopt;
  std::map<std::string, std::string> sessions;
  for (const auto& [provider, session] : object.items()) {
    if (!session.is_string()) return std::nullopt;
    sessions.emplace(provider, session.get<std::string>());
  }
  return sessions;
}

}  // namespace sluice::endpoints::federation
