#pragma once
// The console's sessions in the shared store (store::ConsoleSessions: PostgreSQL in the server,
// migrations/0006_fleet.sql), shared by every replica: the session table of each process
// (session_table.h) is a cache in front of it. The cookie's id is stored only as its SHA-256. A
// session is alive while its row is: sign-out deletes it, idle and lifetime expiry are checked by
// the store.
//
// Each function is one call to `sessions`; they throw what it throws.

#include <chrono>
#include <optional>
#include <string>

#include "server/admin/session_table.h"
#include "server/store/console_sessions.h"

namespace sluice::admin {

// Keeps `session` (expiring `lifetime` after its creation); also deletes rows expired a day ago.
void storeSession(store::ConsoleSessions& sessions, const Session& session, std::chrono::seconds lifetime);

// The live session with this cookie id (not expired, used within `idle`), or nullopt.
std::optional<Session> loadSession(store::ConsoleSessions& sessions, const std::string& id, std::chrono::seconds idle);

// Marks the session used now; false when it is gone (signed out elsewhere) or expired.
bool touchSession(store::ConsoleSessions& sessions, const std::string& id, std::chrono::seconds idle);

void deleteSession(store::ConsoleSessions& sessions, const std::string& id);

// SHA-256 of the cookie id, as PostgreSQL's bytea hex input ("\x…").
std::string sessionIdHash(const std::string& id);

}  // namespace sluice::admin
