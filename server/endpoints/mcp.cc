#include "server/endpoints/mcp.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "server/endpoints/mcp_federation.h"
#include "server/endpoints/mcp_session.h"
#include "server/http/gateway.h"
#include "server/http/respond.h"
#include "server/identity/access.h"
#include "server/log/json_log.h"
#include "server/pipeline/exchange.h"
#include "server/protection/json_texts.h"
#include "server/protection/restorer.h"
#include "server/wire/json_parse.h"

namespace sluice::endpoints {

namespace {

using SteadyClock = std::chrono::steady_clock;
namespace keys = wire::error_keys;

// The largest JSON answer read whole (a listing to filter, a result to restore), and the largest
// SSE event of a stream the gateway rewrites.
constexpr size_t kMaxAnswerBytes = 32u << 20;
constexpr size_t kMaxEventBytes = 16u << 20;
// A provider name as the path gives it: longer or other characters name no server.
constexpr size_t kMaxProviderBytes = 128;
// Request headers passed to the server, bounded: the protocol version and a resumed stream's id.
constexpr size_t kMaxHeaderValueBytes = 256;

// The operation label of the metrics (gen_ai_operation_name): GenAI's own for a tool call.
constexpr std::string_view kExecuteTool = "execute_tool";
constexpr std::string_view kMcpRead = "mcp_read";
constexpr std::string_view kMcpMessage = "mcp";

// The placeholder opener of protection/placeholder.h (⟦): a string without it has nothing to restore.
constexpr std::string_view kPlaceholderOpen = "\xE2\x9F\xA6";

bool plainName(std::string_view name, size_t bound) {
  return !name.empty() && name.size() <= bound && std::ranges::all_of(name, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// A header value the gateway passes on: visible ASCII and spaces, bounded; "" otherwise.
std::string passable(const std::string& value) {
  if (value.size() > kMaxHeaderValueBytes) return {};
  if (!std::ranges::all_of(value, [](char c) { return c >= 0x20 && c <= 0x7e; })) return {};
  return value;
}

// A route_match segment's value: what a client named, with ';' (the separator) and anything
// unusual replaced, bounded.
std::string segmentValue(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 200)) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./:@").find(c) != std::string_view::npos;
    out += keep ? c : '_';
  }
  return out;
}

std::string lower(std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The error text of a JSON-RPC error or a tool's isError result, for the audit row: short.
std::string shortText(const wire::Json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : wire::dumpJsonText(value);
  if (text.size() > 300) text.resize(300);
  return text;
}

// The method label: MCP's own methods, else "other" (a client cannot mint series).
std::string_view methodLabel(std::string_view http_method, const wire::mcp::Message& message, bool read) {
  if (http_method == "GET") return "GET";
  if (http_method == "DELETE") return "DELETE";
  if (!read) return "invalid";
  if (message.kind == wire::mcp::Kind::Response) return "response";
  static constexpr std::string_view kKnown[] = {
      "initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
      "resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
      "completion/complete", "logging/setLevel", "notifications/initialized", "notifications/cancelled",
      "notifications/progress", "notifications/roots/list_changed"};
  for (const std::string_view known : kKnown) {
    if (message.method == known) return known;
  }
  return message.method.starts_with("notifications/") ? "notifications/other" : "other";
}

// The tool label: the name, for at most kMaxToolSeries distinct server/tool pairs a process; the
// rest are "other" (tool names come from clients).
constexpr size_t kMaxToolSeries = 2000;
std::string toolLabel(const std::string& server, const std::string& tool) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> seen;
  if (!plainName(tool, 128)) return "other";
  const std::string key = server + "/" + tool;
  std::lock_guard lock(mutex);
  if (seen.contains(key)) return tool;
  if (seen.size() >= kMaxToolSeries) return "other";
  seen.insert(key);
  return tool;
}

}  // namespace

void Mcp::count(pipeline::Exchange& exchange, std::string_view outcome) {
  if (counted_) return;
  counted_ = true;
  const std::string server = endpoint_ != nullptr ? provider_id_ : std::string("unknown");
  const std::string result = outcome.empty() ? std::string("ok") : std::string(outcome);
  auto& metrics = exchange.gateway().metrics();
  metrics.mcp_messages.with({server, std::string(methodLabel(method_, message_, message_read_)), result}).inc();
  if (message_read_ && message_.isToolCall() && endpoint_ != nullptr) {
    metrics.mcp_tool_calls.with({server, toolLabel(server, message_.target), result}).inc();
  }
}

std::string requestOrigin(std::string_view host, bool tls) {
  if (host.empty() || host.size() > 255) return {};
  const bool usable = std::ranges::all_of(host, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
  });
  if (!usable) return {};
  return std::string(tls ? "https://" : "http://") + std::string(host);
}

void answerProtectedResource(const std::string& origin, const std::string& path,
                             Poco::Net::HTTPServerResponse& response) {
  constexpr std::string_view kWellKnown = "/.well-known/oauth-protected-resource";
  std::string resource_path = path.size() > kWellKnown.size() ? path.substr(kWellKnown.size()) : "/mcp";
  if (!resource_path.starts_with("/mcp") || resource_path.size() > 200) {
    http::sendJson(response, 404, nlohmann::json{{"error", "not_found"}}.dump());
    return;
  }
  nlohmann::json metadata = {
      {"resource", origin + resource_path},
      {"resource_name", "Sluice MCP gateway"},
      {"bearer_methods_supported", {"header"}},
      {"resource_documentation", origin + "/admin"},
  };
  response.set("Cache-Control", "public, max-age=300");
  http::sendJson(response, 200, metadata.dump());
}

const catalog::Endpoint* Mcp::mcpEndpointOf(std::string_view provider_id) const {
  const catalog::Provider* provider =
      plainName(provider_id, kMaxProviderBytes) ? catalog_->provider(provider_id) : nullptr;
  if (provider == nullptr) return nullptr;
  for (const catalog::Endpoint& endpoint : provider->endpoints) {
    if (endpoint.wire == catalog::Wire::Mcp) return &endpoint;
  }
  return nullptr;
}

std::expected<pipeline::Inspected, wire::ApiError> Mcp::read(pipeline::Exchange& exchange) {
  http::Request& request = exchange.request();
  request_id_ = request.id();
  catalog_ = exchange.gateway().catalog();
  method_ = request.method();
  if (const auto& who = exchange.who()) {
    caller_ = who->caller;
    scope_ = who->scope;
    member_ = who->caller.user;
  }
  if (federated_) {
    if (auto admitted = admitFederated(exchange); !admitted) return std::unexpected(admitted.error());
  } else {
    endpoint_ = mcpEndpointOf(provider_id_);
    if (endpoint_ == nullptr) {
      exchange.ledger().row().route_match = "endpoint:mcp";
      return std::unexpected(wire::ApiError::make(
          404, keys::kMcpServerNotFound,
          plainName(provider_id_, kMaxProviderBytes) ? "no MCP server '" + provider_id_ + "' is declared here"
                                                     : "no MCP server of that name is declared here"));
    }
    if (caller_) {
      const identity::Decision decision = identity::decideMcpServer(
          catalog_->access_rules, provider_id_, identity::accessSubject(*caller_, *scope_));
      if (!decision.allowed) {
        log::info("access denied", {{"request_id", request_id_}, {"user", member_},
                                    {"entity", decision.entity}, {"basis", decision.basis}});
        exchange.ledger().row().route_match = "endpoint:mcp;mcp:" + provider_id_;
        return std::unexpected(wire::ApiError::make(403, keys::kAccessDenied, decision.message()));
      }
    }
  }
  admitted_ = true;
  if (request.has("Mcp-Session-Id")) {
    auto opened = McpSessions::shared().open(request.header("Mcp-Session-Id"), member_,
                                             federated_ ? std::string_view("*") : std::string_view(provider_id_));
    std::optional<std::map<std::string, std::string>> sessions;
    if (opened && federated_) sessions = federation::decodeSessions(*opened);
    if (!opened || (federated_ && !sessions)) {
      return std::unexpected(wire::ApiError::make(404, keys::kMcpSessionNotFound,
                                                  "this MCP session is not known here; start a new one (initialize)"));
    }
    if (federated_) {
      sessions_ = std::move(*sessions);
    } else {
      server_session_ = std::move(*opened);
    }
  }
  protocol_version_ = passable(request.header("MCP-Protocol-Version"));
  last_event_id_ = passable(request.header("Last-Event-ID"));

  pipeline::Inspected facts;
  if (method_ == "GET" || method_ == "DELETE") {
    // The server's own stream, or the end of the session: counted, not audited.
    exchange.ledger().noteOperation(kMcpMessage);
    exchange.ledger().withoutRow();
    if (federated_) return answerFederatedSession(exchange);
    facts.requested_model = method_ == "GET" ? "stream" : "end_session";
    facts.stream = method_ == "GET";
    requested_ = facts.requested_model;
    prepareTarget();
    return facts;
  }
  auto body = exchange.readWholeBody();
  if (!body) return std::unexpected(body.error());
  raw_ = std::move(*body);
  document_ = wire::parseBounded(raw_);
  if (document_.is_discarded()) {
    return std::unexpected(wire::ApiError::make(400, keys::kInvalidJson,
                                                "the body is not JSON (or nests deeper than " +
                                                    std::to_string(wire::kMaxJsonDepth) + " levels)"));
  }
  auto message = wire::mcp::readMessage(document_);
  if (!message) {
    // Answered with the message's own id when it has a usable one.
    if (const auto id = document_.is_object() ? document_.find("id") : document_.end();
        document_.is_object() && id != document_.end() &&
        (id->is_number_integer() ||
         (id->is_string() && id->get_ref<const std::string&>().size() <= wire::mcp::kMaxNameBytes))) {
      message_.id = *id;
    }
    return std::unexpected(message.error());
  }
  message_ = std::move(*message);
  message_read_ = true;
  if (federated_) {
    if (!message_.isToolCall() && message_.method != "prompts/get") {
      exchange.ledger().noteOperation(kMcpMessage);
      exchange.ledger().withoutRow();
      return answerFederated(exchange);
    }
    if (auto routed = routeFederatedCall(); !routed) return std::unexpected(routed.error());
  }
  if (message_.isToolCall() && caller_) {
    const identity::Decision decision = identity::decideMcpTool(
        catalog_->access_rules, provider_id_, message_.target, identity::accessSubject(*caller_, *scope_));
    if (!decision.allowed) {
      log::info("access denied", {{"request_id", request_id_}, {"user", member_},
                                  {"entity", decision.entity}, {"basis", decision.basis}});
      exchange.ledger().row().route_match =
          "endpoint:mcp;mcp:" + provider_id_ + ";tool:" + segmentValue(message_.target);
      exchange.ledger().row().requested_model = segmentValue(message_.target);
      return std::unexpected(wire::ApiError::make(403, keys::kAccessDenied, decision.message()));
    }
  }
  if (message_.audited()) {
    exchange.ledger().noteOperation(message_.isToolCall() ? kExecuteTool : kMcpRead);
    facts.requested_model = message_.target.substr(0, 200);
  } else {
    exchange.ledger().noteOperation(kMcpMessage);
    exchange.ledger().withoutRow();
    facts.requested_model = message_.kind == wire::mcp::Kind::Response ? "response" : message_.method;
  }
  requested_ = facts.requested_model;
  facts.body_bytes = raw_.size();
  prepareTarget();
  return facts;
}

void Mcp::prepareTarget() {
  const catalog::Provider* provider = catalog_->provider(provider_id_);
  model_.id = "mcp:" + provider_id_;
  model_.display_name = provider != nullptr ? provider->display_name : provider_id_;
  deployment_.model_id = model_.id;
  deployment_.endpoint_key = endpoint_->key;
  deployment_.provider_id = provider_id_;
  deployment_.endpoint_id = endpoint_->id;
}

std::expected<void, wire::ApiError> Mcp::admitFederated(pipeline::Exchange& exchange) {
  bool any = false;
  for (const catalog::Provider& provider : catalog_->providers) {
    const catalog::Endpoint* endpoint = mcpEndpointOf(provider.id);
    if (endpoint == nullptr) continue;
    any = true;
    if (caller_ && !identity::decideMcpServer(catalog_->access_rules, provider.id,
                                              identity::accessSubject(*caller_, *scope_))
                        .allowed) {
      continue;
    }
    if (servers_.size() == federation::kMaxServers) break;
    servers_.push_back({provider.id, &provider, endpoint});
  }
  if (!any) {
    exchange.ledger().row().route_match = "endpoint:mcp";
    return std::unexpected(wire::ApiError::make(404, keys::kMcpServerNotFound, "no MCP server is declared here"));
  }
  if (servers_.empty()) {
    exchange.ledger().row().route_match = "endpoint:mcp";
    return std::unexpected(
        wire::ApiError::make(403, keys::kAccessDenied, "authz denied [mcp_server/*]: no MCP server is open to you"));
  }
  return {};
}

std::expected<void, wire::ApiError> Mcp::routeFederatedCall() {
  // `<provider>__<tool>`: the longest server name that prefixes it, among the member's servers.
  const federation::Server* target = nullptr;
  for (const federation::Server& server : servers_) {
    const std::string prefix = server.provider + std::string(federation::kSeparator);
    if (message_.target.size() > prefix.size() && message_.target.starts_with(prefix) &&
        (target == nullptr || server.provider.size() > target->provider.size())) {
      target = &server;
    }
  }
  if (target == nullptr) {
    return std::unexpected(wire::ApiError::make(
        400, keys::kInvalidParams,
        "the federated endpoint's tools and prompts are named <server>__<name>, for a server open to you; '" +
            segmentValue(message_.target) + "' names none"));
  }
  provider_id_ = target->provider;
  endpoint_ = target->endpoint;
  if (const auto session = sessions_.find(provider_id_); session != sessions_.end()) server_session_ = session->second;
  message_.target = message_.target.substr(provider_id_.size() + federation::kSeparator.size());
  document_["params"]["name"] = message_.target;
  raw_ = wire::dumpJsonText(document_);
  return {};
}

std::expected<pipeline::Inspected, wire::ApiError> Mcp::answerFederated(pipeline::Exchange& exchange) {
  pipeline::Inspected answered;
  answered.answered = true;
  auto& response = exchange.response();
  const auto reply = [&](int status, const wire::Json& body) {
    http::sendJson(response, status, wire::dumpJsonText(body));
    exchange.ledger().answeredLocally(status);
    count(exchange, "");
  };
  if (message_.kind != wire::mcp::Kind::Request) {
    // Notifications (initialized went to each server with initialize) and responses: taken.
    response.setStatus(Poco::Net::HTTPResponse::HTTP_ACCEPTED);
    response.setContentLength(0);
    response.send().flush();
    exchange.ledger().answeredLocally(202);
    count(exchange, "");
    return answered;
  }
  const auto result = [&](wire::Json value) {
    return wire::Json{{"jsonrpc", "2.0"}, {"id", message_.id}, {"result", std::move(value)}};
  };
  if (message_.method == "ping") {
    reply(200, result(wire::Json::object()));
    return answered;
  }
  if (message_.method == "initialize") {
    const auto replies = federation::fanOut(exchange, servers_, {}, raw_, message_.id, protocol_version_);
    std::map<std::string, std::string> sessions;
    std::vector<std::string> joined;
    std::string version;
    for (const federation::Reply& server : replies) {
      if (!server.message || !server.message->contains("result")) {
        log::warn("MCP server left out of a federated session",
                  {{"request_id", request_id_}, {"provider", server.provider}, {"error", server.error}});
        continue;
      }
      sessions[server.provider] = server.session;
      joined.push_back(server.provider);
      const auto& answer = (*server.message)["result"];
      if (version.empty() && answer.contains("protocolVersion") && answer["protocolVersion"].is_string()) {
        version = answer["protocolVersion"].get<std::string>();
      }
    }
    // Each server that joined is told the client is ready, in the client's place.
    std::vector<federation::Server> ready;
    for (const federation::Server& server : servers_) {
      if (sessions.contains(server.provider)) ready.push_back(server);
    }
    federation::fanOut(exchange, ready, sessions, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                       wire::Json(), version.empty() ? protocol_version_ : version);
    const auto params = document_.find("params");
    if (version.empty() && params != document_.end() && params->is_object() && params->contains("protocolVersion") &&
        (*params)["protocolVersion"].is_string()) {
      version = (*params)["protocolVersion"].get<std::string>();
    }
    std::string names;
    for (const std::string& name : joined) names += (names.empty() ? "" : ", ") + name;
    response.set("Mcp-Session-Id",
                 McpSessions::shared().seal(federation::encodeSessions(sessions), member_, "*"));
    reply(200, result({{"protocolVersion", version.empty() ? "2025-06-18" : version},
                       {"capabilities", {{"tools", {{"listChanged", false}}}, {"prompts", {{"listChanged", false}}}}},
                       {"serverInfo", {{"name", "sluice"}, {"version", "1"}}},
                       {"instructions", "The tools of the MCP servers open to you through Sluice (" +
                                            (names.empty() ? std::string("none answered") : names) +
                                            "), each named <server>__<tool>."}}));
    return answered;
  }
  if (message_.method == "tools/list" || message_.method == "prompts/list") {
    const bool tools_listed = message_.method == "tools/list";
    const char* key = tools_listed ? "tools" : "prompts";
    std::vector<federation::Server> joined;
    for (const federation::Server& server : servers_) {
      if (sessions_.contains(server.provider)) joined.push_back(server);
    }
    auto replies = federation::fanOut(exchange, joined, sessions_, raw_, message_.id, protocol_version_);
    wire::Json items = wire::Json::array();
    for (federation::Reply& server : replies) {
      if (!server.message) {
        log::warn("MCP server left out of a federated listing",
                  {{"request_id", request_id_}, {"provider", server.provider}, {"method", message_.method},
                   {"error", server.error}});
        continue;
      }
      auto& listing = (*server.message)["result"];
      if (!listing.is_object() || !listing.contains(key) || !listing[key].is_array()) continue;
      if (tools_listed) {
        const identity::AccessSubject subject =
            caller_ ? identity::accessSubject(*caller_, *scope_) : identity::AccessSubject{};
        wire::mcp::keepTools(listing, [&](std::string_view tool) {
          return !caller_ || identity::decideMcpTool(catalog_->access_rules, server.provider, tool, subject).allowed;
        });
      }
      for (auto& item : listing[key]) {
        const auto name = item.is_object() ? item.find("name") : item.end();
        if (name == item.end() || !name->is_string()) continue;  // cannot be asked for by name
        item["name"] = server.provider + std::string(federation::kSeparator) + name->get<std::string>();
        items.push_back(std::move(item));
      }
    }
    reply(200, result({{key, std::move(items)}}));
    return answered;
  }
  auto error = wire::ApiError::make(404, keys::kMcpMethodNotAvailable,
                                    "'" + segmentValue(message_.method) +
                                        "' is not served by the federated endpoint /mcp; connect /mcp/<server> for it");
  http::sendJson(response, 200, wire::dumpJsonText(wire::mcp::errorMessage(message_.id, error, request_id_)));
  exchange.ledger().answeredLocally(200);
  count(exchange, keys::kMcpMethodNotAvailable);
  return answered;
}

std::expected<pipeline::Inspected, wire::ApiError> Mcp::answerFederatedSession(pipeline::Exchange& exchange) {
  if (method_ == "GET") {
    return std::unexpected(wire::ApiError::make(405, keys::kMethodNotAllowed,
                                                "the federated endpoint /mcp has no server stream; connect "
                                                "/mcp/<server> for one"));
  }
  std::vector<federation::Server> joined;
  for (const federation::Server& server : servers_) {
    if (sessions_.contains(server.provider)) joined.push_back(server);
  }
  federation::fanOut(exchange, joined, sessions_, "", wire::Json(), protocol_version_, "DELETE");
  pipeline::Inspected answered;
  answered.answered = true;
  auto& response = exchange.response();
  response.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
  response.setContentLength(0);
  response.send().flush();
  exchange.ledger().answeredLocally(200);
  count(exchange, "");
  return answered;
}

std::optional<dispatch::Plan> Mcp::ownPlan(const catalog::Catalog&) const {
  dispatch::Plan plan;
  plan.requested_model = requested_;
  plan.model_id = model_.id;
  plan.model = &model_;
  dispatch::Attempt attempt;
  attempt.deployment = &deployment_;
  attempt.model = &model_;
  attempt.endpoint = endpoint_;
  attempt.provider = catalog_->provider(provider_id_);
  attempt.credential = catalog_->credentialOf(*endpoint_);
  if (attempt.credential) attempt.paid_by = attempt.credential->kind;
  plan.attempts.push_back(attempt);
  plan.route_match.push_back("mcp:" + provider_id_);
  if (message_.audited()) {
    const char* kind = message_.isToolCall() ? "tool:" : message_.method == "prompts/get" ? "prompt:" : "resource:";
    plan.route_match.push_back(kind + segmentValue(message_.target));
  }
  return plan;
}

pipeline::MaskOutcome Mcp::maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) {
  // What a person or an agent wrote: a call's arguments. Names, URIs and the protocol's own
  // fields go as they are (a masked tool name would call another tool).
  wire::Json document = document_;
  protection::MaskResult nothing;
  if (!document.is_object()) {
    masked_ = raw_;
    return nothing;
  }
  const auto params = document.find("params");
  const bool has_arguments = (message_.method == "tools/call" || message_.method == "prompts/get") &&
                             params != document.end() && params->is_object() && params->contains("arguments");
  if (!has_arguments) {
    masked_ = raw_;
    return nothing;
  }
  wire::Json& arguments = (*params)["arguments"];
  auto result = protection::maskJsonTexts(arguments, detector, {}, limits);
  if (!result) return std::unexpected("masking failed: " + result.error().reason);
  masked_ = wire::dumpJsonText(document);
  return std::move(*result);
}

std::expected<std::string, wire::ApiError> Mcp::bodyFor(const dispatch::Attempt&, const dispatch::Plan&, bool masked) {
  if (masked && masked_) return *masked_;
  return raw_;
}

std::string_view Mcp::lane(const dispatch::Attempt&, bool masked) const {
  return masked ? metrics::lane::kMasked : metrics::lane::kPassthrough;
}

void Mcp::shape(pipeline::AttemptCall& call) {
  call.method = method_;
  call.accept = method_ == "GET" ? "text/event-stream" : "application/json, text/event-stream";
  call.stream = method_ == "GET";
  call.field_retry = false;
  // A tool call may change the world: sent once, never retried (a failure is the call's JSON-RPC
  // error). So are the server's stream and the session's end.
  call.retry_same = !message_.audited() && method_ == "POST";
  if (!server_session_.empty()) call.headers.emplace_back("Mcp-Session-Id", server_session_);
  if (!protocol_version_.empty()) call.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
  if (method_ == "GET" && !last_event_id_.empty()) call.headers.emplace_back("Last-Event-ID", last_event_id_);
}

bool Mcp::rewrites(bool masked) const {
  return masked || (message_.method == "tools/list" && caller_.has_value());
}

void Mcp::rewriteAnswer(wire::Json& message, const protection::Mapping* restore, pipeline::RelayResult& result) const {
  if (!message.is_object()) return;
  const auto id = message.find("id");
  const bool answers_call = id != message.end() && *id == message_.id && !message.contains("method");
  const auto error = answers_call ? message.find("error") : message.end();
  if (error != message.end()) {
    // Noted before the restore: the row keeps what the server said, never a restored original.
    result.error_key = keys::kMcpError;
    result.error_message = error->is_object() && error->contains("message") ? shortText((*error)["message"])
                                                                            : shortText(*error);
  }
  if (restore != nullptr) {
    wire::mcp::rewriteStrings(message, [&](std::string& text) {
      if (text.find(kPlaceholderOpen) != std::string::npos) text = protection::restoreText(text, *restore);
    });
  }
  if (!answers_call || error != message.end()) return;  // not the answer to our call, or its error
  const auto answer = message.find("result");
  if (answer == message.end()) return;
  if (message_.method == "tools/list" && caller_) {
    const identity::AccessSubject subject = identity::accessSubject(*caller_, *scope_);
    wire::mcp::keepTools(*answer, [&](std::string_view tool) {
      return identity::decideMcpTool(catalog_->access_rules, provider_id_, tool, subject).allowed;
    });
  }
  if (message_.isToolCall() && answer->is_object()) {
    const auto failed = answer->find("isError");
    if (failed != answer->end() && failed->is_boolean() && failed->get<bool>()) {
      // The tool's own words are its result (the caller's data, maybe restored originals): the
      // audit row says only that it failed.
      result.error_key = keys::kToolError;
      result.error_message = "the tool reported an error (isError)";
    }
  }
}

pipeline::RelayResult Mcp::relay(pipeline::Exchange& exchange, const dispatch::Plan&, const dispatch::Attempt&,
                                 pipeline::Answer& answer, bool masked, pipeline::RelayOptions options) {
  auto& response = exchange.response();
  upstream::Response& provider = *answer.response;
  const int status = provider.status();
  // The server's session, sealed for this member and server: the client never sees the server's id.
  // On /mcp the client's session is the gateway's federated one: a server's id is never passed on.
  if (const std::string session = provider.header("Mcp-Session-Id"); !session.empty() && !federated_) {
    if (wire::mcp::validSessionId(session)) {
      response.set("Mcp-Session-Id", McpSessions::shared().seal(session, member_, provider_id_));
    } else {
      log::warn("MCP server sent an unusable session id; not passed on",
                {{"request_id", request_id_}, {"provider", provider_id_}, {"bytes", session.size()}});
    }
  }
  if (const std::string version = passable(provider.header("MCP-Protocol-Version")); !version.empty()) {
    response.set("MCP-Protocol-Version", version);
  }
  if (status >= 400) {
    pipeline::RelayResult relayed;
    relayed.status = status;
    const std::string content_type = provider.header("Content-Type");
    http::sendBody(response, status, content_type.empty() ? "application/json" : content_type, answer.error_body);
    relayed.first_byte_at = SteadyClock::now();
    relayed.error_key = status == 404 && !server_session_.empty() ? std::string(keys::kMcpSessionNotFound)
                                                                  : std::string(keys::kUpstreamError);
    relayed.error_message = answer.error_body.substr(0, 300);
    return relayed;
  }
  // Read on the way: a listing to filter, a masked call's result to restore, a call's answer for
  // its row. The server's own stream (GET) and everything else pass as they come.
  const bool rewrite = method_ == "POST" && (rewrites(masked) || message_.audited());
  const protection::Mapping* restore = masked ? options.restore : nullptr;
  const std::string content_type = lower(provider.header("Content-Type"));
  if (content_type.starts_with("text/event-stream")) return relayEvents(exchange, answer, restore, options, rewrite);
  if (rewrite && content_type.find("json") != std::string::npos) return relayWhole(exchange, answer, restore, options);
  return pipeline::relayAsItComes(provider, response, options, nullptr);
}

pipeline::RelayResult Mcp::relayWhole(pipeline::Exchange& exchange, pipeline::Answer& answer,
                                      const protection::Mapping* restore, const pipeline::RelayOptions& options) {
  upstream::Response& provider = *answer.response;
  pipeline::RelayResult relayed;
  relayed.status = provider.status();
  std::string text;
  while (provider.readSome(text)) {  // throws with nothing sent: the Exchange answers the failure
    if (options.cancel && options.cancel->cancelled()) {
      provider.abort();
      relayed.client_gone = true;
      return relayed;
    }
    if (text.size() > kMaxAnswerBytes) {
      provider.abort();
      throw upstream::TransportError(upstream::TransportFailure::Protocol,
                                     "the MCP server's answer is larger than " + std::to_string(kMaxAnswerBytes) +
                                         " bytes");
    }
  }
  wire::Json document = wire::parseBounded(text);
  if (!document.is_discarded()) {
    rewriteAnswer(document, restore, relayed);
    text = wire::dumpJsonText(document);
  }
  http::sendBody(exchange.response(), relayed.status, "application/json", text);
  relayed.first_byte_at = SteadyClock::now();
  return relayed;
}

pipeline::RelayResult Mcp::relayEvents(pipeline::Exchange& exchange, pipeline::Answer& answer,
                                       const protection::Mapping* restore, const pipeline::RelayOptions& options,
                                       bool rewrite) {
  upstream::Response& provider = *answer.response;
  pipeline::RelayResult relayed;
  relayed.status = provider.status();
  // The head goes out at once: a server's own stream (GET) may stay silent for minutes, and a
  // client waits for the head before it goes on. There is one attempt: nothing to fail over to.
  auto& response = exchange.response();
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(relayed.status));
  response.setContentType("text/event-stream");
  response.set("Cache-Control", "no-cache");
  response.setChunkedTransferEncoding(true);
  std::ostream& out = response.send();
  out.flush();
  relayed.first_byte_at = SteadyClock::now();
  const auto gone = [&] {
    provider.abort();  // closing the server's connection ends the call there
    relayed.client_gone = true;
    return relayed;
  };
  if (!out.good()) return gone();
  std::string buffer;
  size_t scanned = 0;  // of `buffer`, searched for a blank line already
  try {
    for (;;) {
      if (options.cancel && options.cancel->cancelled()) return gone();
      const bool more = provider.readSome(buffer);
      std::string frames;
      if (!rewrite) {
        frames.swap(buffer);
      } else {
        const auto rewrite_message = [&](wire::Json& message) { rewriteAnswer(message, restore, relayed); };
        size_t separator = 0;
        for (size_t end = wire::mcp::eventEnd(buffer, separator, scanned); end != std::string::npos;
             end = wire::mcp::eventEnd(buffer, separator)) {
          frames += wire::mcp::rewriteEvent(std::string_view(buffer).substr(0, end), rewrite_message);
          buffer.erase(0, end + separator);
          scanned = 0;
        }
        // What is left holds no blank line: the next search starts near its end.
        scanned = buffer.size() < 3 ? 0 : buffer.size() - 3;
        if (buffer.size() > kMaxEventBytes) {
          provider.abort();
          relayed.upstream_broke = true;
          relayed.error_key = keys::kUpstreamInvalidResponse;
          relayed.error_message =
              "an SSE event of the MCP server is larger than " + std::to_string(kMaxEventBytes) + " bytes";
          break;
        }
        if (!more && !buffer.empty()) frames += wire::mcp::rewriteEvent(buffer, rewrite_message);
      }
      if (!frames.empty()) {
        out.write(frames.data(), static_cast<std::streamsize>(frames.size()));
        out.flush();
        if (!out.good()) return gone();
      }
      if (!more) break;
    }
  } catch (const upstream::TransportError& failure) {
    if (options.cancel && options.cancel->cancelled()) return gone();
    relayed.upstream_broke = true;
    relayed.error_key = keys::kUpstreamStreamBroken;
    relayed.error_message = failure.what();
  }
  return relayed;
}

dispatch::Charge Mcp::charge(pipeline::Exchange& exchange, const dispatch::Attempt&, pipeline::RelayResult& relayed) {
  count(exchange, relayed.client_gone ? std::string_view("client_gone") : std::string_view(relayed.error_key));
  if (message_.audited()) {
    auto& row = exchange.ledger().row();
    row.unit = message_.isToolCall() ? "tool_calls" : "requests";
    row.units = 1;
  }
  return {};
}

void Mcp::answerRefusal(pipeline::Exchange& exchange, const wire::ApiError& error) {
  count(exchange, error.key.empty() ? std::string_view("refused") : std::string_view(error.key));
  auto& response = exchange.response();
  if (error.status == 401) {
    const std::string origin =
        requestOrigin(exchange.request().header("Host"), exchange.gateway().tls() != nullptr);
    std::string challenge = "Bearer error=\"invalid_token\"";
    if (!origin.empty()) {
      challenge += ", resource_metadata=\"" + origin + "/.well-known/oauth-protected-resource/mcp" +
                   (plainName(provider_id_, kMaxProviderBytes) ? "/" + provider_id_ : std::string()) + "\"";
    }
    response.set("WWW-Authenticate", challenge);
  }
  if (error.retry_after_seconds) response.set("Retry-After", std::to_string(*error.retry_after_seconds));
  // Once the server's rule let the caller in and the message is a request, the refusal is the
  // request's JSON-RPC answer; before that (identity, the server's rule, the session, the body)
  // the HTTP status says it, with the same JSON-RPC error as the body.
  const bool as_answer = admitted_ && message_read_ && message_.kind == wire::mcp::Kind::Request;
  const wire::Json& id = message_.id;  // null until the message's id is known
  http::sendJson(response, as_answer ? 200 : error.status,
                 wire::mcp::errorMessage(id, error, exchange.request().id()).dump(-1, ' ', false, wire::Json::error_handler_t::replace));
}

}  // namespace sluice::endpoints
