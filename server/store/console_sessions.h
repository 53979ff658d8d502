#pragma once
// The console's sign-in sessions, shared by every replica (each replica's admin::SessionTable is a
// cache in front of them). Sessions are named by the hash of their cookie id, never the id:
// hashing, the session policy and re-checking the key are admin's (server/admin/session_store.h).
// A session is alive while it is stored, not past its lifetime, and used within `idle`.
//
// Implementations: PgConsoleSessions (migrations/0006_fleet.sql), tests/fakes/fake_console_sessions.h.
// Thread-safe. Environment failures throw.

#include <chrono>
#include <optional>
#include <string>

namespace sluice::store {

struct SessionRow {
  std::string id_hash;  // admin::sessionIdHash of the cookie id
  std::string csrf;
  std::string user;
  std::string api_key_id;
  std::chrono::system_clock::time_point created_at{};  // set by the store
};

class ConsoleSessions {
 public:
  virtual ~ConsoleSessions() = default;
  // Keeps `session`, alive for `lifetime` from now; forgets sessions expired over a day ago.
  virtual void open(const SessionRow& session, std::chrono::seconds lifetime) = 0;
  // The live session with this hash, or nullopt.
  virtual std::optional<SessionRow> find(const std::string& id_hash, std::chrono::seconds idle) = 0;
  // Marks the session used now; false when it is gone (signed out elsewhere) or expired.
  virtual bool touch(const std::string& id_hash, std::chrono::seconds idle) = 0;
  virtual void close(const std::string& id_hash) = 0;
};

}  // namespace sluice::store
