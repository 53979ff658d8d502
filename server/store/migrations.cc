#include "server/store/migrations.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace sluice::store {

namespace {

// The key of the session advisory lock held while migrating ("sluice:migrations").
constexpr long long kMigrationLock = 0x736c756963656d67LL;

constexpr const char* kCreateSchemaMigrations = R"(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
))";

class AdvisoryLock {
 public:
  explicit AdvisoryLock(pqxx::connection& connection) : connection_(connection) {
    pqxx::nontransaction query(connection_);
    query.exec("SELECT pg_advisory_lock(" + std::to_string(kMigrationLock) + ")");
  }
  ~AdvisoryLock() {
    try {
      pqxx::nontransaction query(connection_);
      query.exec("SELECT pg_advisory_unlock(" + std::to_string(kMigrationLock) + ")");
    } catch (const pqxx::failure&) {
      // NOTE: a broken connection has released the lock already.
    }
  }
  AdvisoryLock(const AdvisoryLock&) = delete;
  AdvisoryLock& operator=(const AdvisoryLock&) = delete;

 private:
  pqxx::connection& connection_;
};

bool schemaMigrationsExists(pqxx::connection& connection) {
  pqxx::nontransaction query(connection);
  return !query.exec1("SELECT to_regclass('schema_migrations')")[0].is_null();
}

}  // namespace

std::expected<std::vector<Migration>, std::string> loadMigrations(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator entries(dir, error);
  if (error) return std::unexpected("cannot read the migrations directory " + dir + ": " + error.message());
  std::vector<Migration> migrations;
  for (const auto& entry : entries) {
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || !file.ends_with(".sql")) continue;
    const size_t underscore = file.find('_');
    if (underscore == std::string::npos || underscore == 0) continue;
    int version = 0;
    const auto [end, parsed] = std::from_chars(file.data(), file.data() + underscore, version);
    if (parsed != std::errc{} || end != file.data() + underscore) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    if (!in) return std::unexpected("cannot read " + entry.path().string());
    std::ostringstream text;
    text << in.rdbuf();
    migrations.push_back({version, file.substr(underscore + 1, file.size() - underscore - 5), text.str()});
  }
  std::sort(migrations.begin(), migrations.end(), [](const auto& a, const auto& b) { return a.version < b.version; });
  for (size_t i = 1; i < migrations.size(); ++i) {
    if (migrations[i].version == migrations[i - 1].version) {
      return std::unexpected("two migrations have version " + std::to_string(migrations[i].version) + " in " + dir);
    }
  }
  if (migrations.empty()) return std::unexpected("no migrations (NNNN_name.sql) in " + dir);
  return migrations;
}

MigrationStatus migrationStatus(pqxx::connection& connection, const std::vector<Migration>& migrations) {
  MigrationStatus status;
  std::set<int> applied;
  if (schemaMigrationsExists(connection)) {
    pqxx::nontransaction query(connection);
    for (const auto& row : query.exec("SELECT version, checksum FROM schema_migrations ORDER BY version")) {
      const int version = row[0].as<int>();
      applied.insert(version);
      status.applied.push_back(version);
      const auto known = std::find_if(migrations.begin(), migrations.end(),
                                      [&](const Migration& migration) { return migration.version == version; });
      if (known == migrations.end()) {
        status.unknown.push_back(version);
      } else if (query.exec_params1("SELECT md5($1)", known->sql)[0].as<std::string>() != row[1].as<std::string>()) {
        status.changed.push_back(version);
      }
    }
  }
  for (const auto& migration : migrations) {
    if (!applied.contains(migration.version)) status.pending.push_back(migration);
  }
  return status;
}

std::vector<int> applyMigrations(pqxx::connection& connection, const std::vector<Migration>& migrations) {
  AdvisoryLock lock(connection);
  {
    pqxx::nontransaction query(connection);
    query.exec(kCreateSchemaMigrations);
  }
  // Read under the lock: another replica may have applied some while we waited for it.
  const MigrationStatus status = migrationStatus(connection, migrations);
  std::vector<int> done;
  for (const auto& migration : status.pending) {
    try {
      pqxx::work transaction(connection);
      transaction.exec(migration.sql);
      transaction.exec_params("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, md5($3))",
                              migration.version, migration.name, migration.sql);
      transaction.commit();
    } catch (const pqxx::broken_connection&) {
      throw;
    } catch (const pqxx::sql_error& failure) {
      throw std::runtime_error("migration " + std::to_string(migration.version) + "_" + migration.name +
                               " failed and was rolled back: " + failure.what());
    }
    done.push_back(migration.version);
  }
  return done;
}

}  // namespace sluice::store
