#pragma once
// The console's sessions in PostgreSQL (migration 0006), shared by every replica: the session
// table of each process (session_table.h) is a cache in front of it. The cookie's id is stored
// only as its SHA-256. A session is alive while its row is: sign-out deletes it, idle and
// lifetime expiry are checked in the queries.
//
// Functions on a caller's connection; each is one statement. Throw what libpqxx throws.

#include <chrono>
#include <optional>
#include <string>

#include <pqxx/pqxx>

#include "server/admin/session_table.h"

namespace sluice::admin {

// Inserts `session` (expiring `lifetime` after its creation); also deletes rows expired a day ago.
void storeSession(pqxx::connection& connection, const Session& session, std::chrono::seconds lifetime);

// The live session with this cookie id (not expired, used within `idle`), or nullopt.
std::optional<Session> loadSession(pqxx::connection& connection, const std::string& id, std::chrono::seconds idle);

// Marks the session used now; false when it is gone (signed out elsewhere) or expired.
bool touchSession(pqxx::connection& connection, const std::string& id, std::chrono::seconds idle);

void deleteSession(pqxx::connection& connection, const std::string& id);

// SHA-256 of the cookie id, as PostgreSQL's bytea hex input ("\x…").
std::string sessionIdHash(const std::string& id);

}  // namespace sluice::admin
