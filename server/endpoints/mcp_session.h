#pragma once
// The MCP session ids the gateway hands its clients. An MCP server names a session in
// `Mcp-Session-Id` on its answer to `initialize`; the client is given, instead, that id sealed
// (AES-256-GCM, identity/vault.h) with the member and the server as associated data. Any replica
// holding the same key opens it on the client's next message and sends the server its own id, so a
// session needs no shared table and survives a replica that goes away; another member's session,
// or one of another server, does not open (the client is answered 404 and starts a new one).
// The key: SLUICE_MASTER_KEY (or SLUICE_MASTER_KEY_FILE) when set, the fleet's; else a random key
// of this process (sessions then live as long as the replica that sealed them).
// Thread-safe: immutable after construction.

#include <optional>
#include <string>
#include <string_view>

#include "server/identity/vault.h"

namespace sluice::endpoints {

class McpSessions {
 public:
  explicit McpSessions(identity::Vault vault) : vault_(std::move(vault)) {}

  // The process's own, keyed as described above (built on first use).
  static const McpSessions& shared();

  // The id the client is given for the server's session `server_session`.
  std::string seal(std::string_view server_session, std::string_view member, std::string_view provider) const;
  // The server's session id; nullopt when `token` was not sealed by this key for this member and
  // server (or is malformed). Never throws.
  std::optional<std::string> open(std::string_view token, std::string_view member, std::string_view provider) const;

 private:
  identity::Vault vault_;
};

}  // namespace sluice::endpoints
