#pragma once
// The MCP gateway as a profile of the one pipeline (docs/mcp.md): `/mcp/{provider}` speaks MCP's
// Streamable HTTP transport to a client (POST a JSON-RPC message, GET the server's stream, DELETE
// the session) and relays it to the provider's endpoint of `wire: mcp`, under the gateway's
// identity, access rules, data protection and audit:
//
//   identify  as every endpoint (API key, certificate, trusted proxy); a 401 names the protected
//             resource metadata (RFC 9728) in WWW-Authenticate, as MCP's authorization spec asks
//   read      the server's rule (`mcp_server/<provider>`), the session (the gateway's sealed id
//             opened for this member and server: mcp_session.h), the message (one JSON-RPC
//             object); a tools/call also needs its tool's rule (`mcp_tool/<provider>/<tool>`)
//   execute   one attempt at the server: the platform token or the member's own credential sent,
//             the caller's key never; arguments of tools/call and prompts/get masked for a
//             trusted_masked or public server (block: kinds refused), fail closed
//   relay     JSON or SSE answers as they come; a tools/list answer keeps only the tools the member
//             may call; a masked call's answer has the originals restored
//
// tools/call, resources/read and prompts/get leave one audit row each (route_match
// `endpoint:mcp;mcp:<provider>;tool:<name>`); initialize, the listings, notifications, GET and
// DELETE are counted in the metrics only. A refusal of a message with an id is a JSON-RPC error
// (HTTP 200) once the server's rule has let the caller in; before that, and for the transport's
// own failures, the HTTP status says it (401, 403, 404 session, 413, ...), with a JSON-RPC body.
// Not thread-safe: one per request.

#include <memory>
#include <optional>
#include <string>

#include <map>
#include <vector>

#include "server/endpoints/mcp_federation.h"
#include "server/pipeline/profile.h"
#include "server/wire/mcp/jsonrpc.h"

namespace sluice::endpoints {

class Mcp : public pipeline::Profile {
 public:
  // `provider`: the path's server name (`/mcp/{provider}`), as sent.
  // "" serves the federated endpoint `/mcp` (mcp_federation.h).
  explicit Mcp(std::string provider) : provider_id_(std::move(provider)), federated_(provider_id_.empty()) {}

  catalog::Wire clientWire() const override { return catalog::Wire::Mcp; }
  std::string endpointSegment() const override { return "endpoint:mcp"; }
  std::string_view operation() const override { return operation_; }
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  std::string path() const override { return "/mcp/{provider}"; }
  // A tool call is counted in the `unit: tool_calls` windows; nothing else an MCP client sends is.
  pipeline::QuotaUse quotaUse() const override {
    return message_.isToolCall() ? pipeline::QuotaUse::ToolCall : pipeline::QuotaUse::None;
  }
  std::optional<dispatch::Plan> ownPlan(const catalog::Catalog& catalog) const override;
  pipeline::MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) override;
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan,
                                                     bool masked) override;
  std::string_view lane(const dispatch::Attempt& attempt, bool masked) const override;
  void shape(pipeline::AttemptCall& call) override;
  pipeline::RelayResult relay(pipeline::Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt& attempt,
                              pipeline::Answer& answer, bool masked, pipeline::RelayOptions options) override;
  dispatch::Charge charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                          pipeline::RelayResult& relayed) override;
  void answerRefusal(pipeline::Exchange& exchange, const wire::ApiError& error) override;
  void afterExecute(pipeline::Exchange& exchange) override { count(exchange, "client_gone"); }

 private:
  // The tools/list filter and the restore, applied to one message of the server's answer.
  // Notes a JSON-RPC error or a tool's isError on `result` when `message` answers the client's call.
  void rewriteAnswer(wire::Json& message, const protection::Mapping* restore, pipeline::RelayResult& result) const;
  pipeline::RelayResult relayWhole(pipeline::Exchange& exchange, pipeline::Answer& answer,
                                   const protection::Mapping* restore, const pipeline::RelayOptions& options);
  // An SSE answer: the head at once, then the events as they come; with `rewrite`, each event's
  // JSON-RPC message through rewriteAnswer() (its other fields kept: id:, event:, retry:).
  pipeline::RelayResult relayEvents(pipeline::Exchange& exchange, pipeline::Answer& answer,
                                    const protection::Mapping* restore, const pipeline::RelayOptions& options,
                                    bool rewrite);
  // Counts the message (and a tool call) in the metrics, once, with `outcome` ("" = ok).
  void count(pipeline::Exchange& exchange, std::string_view outcome);
  const catalog::Endpoint* mcpEndpointOf(std::string_view provider_id) const;
  // The model and deployment the plan points at, for the server chosen.
  void prepareTarget();
  // /mcp: the servers open to the caller (none: 403), the gateway's own answers, a tool call's server.
  std::expected<void, wire::ApiError> admitFederated(pipeline::Exchange& exchange);
  std::expected<pipeline::Inspected, wire::ApiError> answerFederated(pipeline::Exchange& exchange);
  std::expected<pipeline::Inspected, wire::ApiError> answerFederatedSession(pipeline::Exchange& exchange);
  std::expected<void, wire::ApiError> routeFederatedCall();
  // True when an answer needs reading before it is relayed (a listing to filter, strings to restore).
  bool rewrites(bool masked) const;

  std::string provider_id_;
  bool federated_ = false;
  std::vector<federation::Server> servers_;      // /mcp: the servers open to the caller
  std::map<std::string, std::string> sessions_;  // /mcp: each server's own session id
  std::shared_ptr<const catalog::Catalog> catalog_;
  const catalog::Endpoint* endpoint_ = nullptr;
  // The plan's one target, as a model and deployment of this request's own (an MCP server is no
  // catalog model); the plan points into them, and the profile outlives the Exchange.
  catalog::Model model_;
  catalog::Deployment deployment_;
  std::string method_;           // the HTTP method
  std::string raw_;              // a POST's body
  wire::Json document_;          // ... parsed
  wire::mcp::Message message_;
  bool admitted_ = false;        // the server's rule let the caller in: refusals of a request are JSON-RPC errors
  bool message_read_ = false;    // message_ holds the client's message
  std::string requested_;        // the row's requested_model: the tool, prompt or URI, or the method
  std::string protocol_version_; // the client's MCP-Protocol-Version, passed on
  std::string last_event_id_;    // a GET's Last-Event-ID, passed on
  std::optional<std::string> masked_;
  std::string server_session_;   // the server's own session id, opened from the client's
  std::string member_;
  std::optional<identity::Caller> caller_;
  std::optional<identity::Scope> scope_;
  std::string_view operation_ = "mcp";
  std::string request_id_;
  bool counted_ = false;
};

// GET /.well-known/oauth-protected-resource[/mcp[/{provider}]] (RFC 9728): what MCP clients read
// after a 401 to learn how to authorise: the resource, and that a bearer token in the
// Authorization header is what the gateway takes (its API keys; no authorization server yet).
// Unauthenticated, cacheable, no audit row.
void answerProtectedResource(const std::string& origin, const std::string& path,
                             Poco::Net::HTTPServerResponse& response);

// The origin clients reached the gateway at ("https://gw.example.com"), from the Host header
// (bounded, checked) and whether the connection is TLS; "" when the Host is unusable.
std::string requestOrigin(std::string_view host, bool tls);

}  // namespace sluice::endpoints
