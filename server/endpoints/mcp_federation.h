#pragma once
// The federated MCP endpoint `/mcp` (docs/mcp.md): one session over every MCP server the member
// may use. initialize and tools/list are fanned out to each server in turn (through the same
// AttemptRunner as every provider call: credential, breaker, in-flight count, timeouts) and
// answered by the gateway: the servers' tools merged, each named `<provider>__<tool>`, only those
// the member may call. A tools/call is then an ordinary call of one server (mcp.h). The client's
// session id seals the servers' own ids (mcp_session.h).
// Not thread-safe: used by one request.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/pipeline/exchange.h"
#include "server/wire/ir.h"

namespace sluice::endpoints::federation {

// The separator between a server's name and its tool's in a federated tool name.
inline constexpr std::string_view kSeparator = "__";
// At most this many servers take part in one federated session.
inline constexpr size_t kMaxServers = 16;

struct Server {
  std::string provider;
  const catalog::Provider* definition = nullptr;
  const catalog::Endpoint* endpoint = nullptr;
};

// One server's answer to a fanned-out message.
struct Reply {
  std::string provider;
  std::optional<wire::Json> message;  // the JSON-RPC response to the message, when one came
  std::string session;                // the server's Mcp-Session-Id, when it gave one
  std::string error;                  // why there is no message
};

// Sends `body` (one JSON-RPC message; `id` the one to wait for, null for a notification) to each
// server with its session from `sessions` and the client's protocol version; in `servers`' order.
// Stops early when the client hangs up.
std::vector<Reply> fanOut(pipeline::Exchange& exchange, const std::vector<Server>& servers,
                          const std::map<std::string, std::string>& sessions, const std::string& body,
                          const wire::Json& id, const std::string& protocol_version, const std::string& method = "POST");

// The servers' sessions as one sealed value's plaintext, and back (nullopt when malformed).
std::string encodeSessions(const std::map<std::string, std::string>& sessions);
std::optional<std::map<std::string, std::string>> decodeSessions(std::string_view text);

}  // namespace sluice::endpoints::federation
