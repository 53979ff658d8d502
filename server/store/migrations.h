#pragma once
// Schema migrations: numbered SQL files (migrations/NNNN_name.sql), applied in order, each in its
// own transaction, recorded in `schema_migrations` (version, name, md5 checksum, applied_at).
// Forward-only: there are no down migrations; a change is a new file. Safe when several replicas
// apply at once: the whole run holds a session advisory lock, so one applies and the others then
// find nothing pending.

#include <expected>
#include <string>
#include <vector>

#include <pqxx/pqxx>

namespace sluice::store {

struct Migration {
  int version = 0;    // from the file name's leading number
  std::string name;   // the rest of the file name, without ".sql"
  std::string sql;
};

// The migrations compiled into the binary from migrations/*.sql at build time, by version.
const std::vector<Migration>& embeddedMigrations();

// Reads DIR/NNNN_name.sql (other files are ignored), by version. Fails on an unreadable
// directory, a duplicate version, or no migrations at all.
std::expected<std::vector<Migration>, std::string> loadMigrations(const std::string& dir);

struct MigrationStatus {
  std::vector<Migration> pending;        // known to us, not yet applied, by version
  std::vector<int> applied;              // recorded in schema_migrations, by version
  std::vector<int> unknown;              // applied by a newer binary; harmless
  std::vector<int> changed;              // applied, but the file's text differs now
};

// What is applied and what is pending. A database without schema_migrations has everything pending.
// Throws pqxx errors (PostgreSQL unreachable, permissions).
MigrationStatus migrationStatus(pqxx::connection& connection, const std::vector<Migration>& migrations);

// Applies every pending migration in version order, each in its own transaction together with its
// schema_migrations row, holding the advisory lock for the whole run. Returns the versions this
// call applied (empty when all were already applied). Throws pqxx errors; a failing migration
// is rolled back and the error names it (std::runtime_error).
std::vector<int> applyMigrations(pqxx::connection& connection, const std::vector<Migration>& migrations);

}  // namespace sluice::store
