#include "cli/migrate_command.h"

#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/database_session.h"
#include "server/store/migrations.h"

namespace sluice::cli {

namespace {

std::string label(const store::Migration& migration) {
  char number[16];
  std::snprintf(number, sizeof number, "%04d", migration.version);
  return std::string(number) + "_" + migration.name;
}

}  // namespace

int migrate(const std::string& database_url, const std::string& migrations_dir, bool status_only, bool json,
            std::ostream& out, std::ostream& err) {
  std::vector<store::Migration> migrations = store::embeddedMigrations();
  if (!migrations_dir.empty()) {
    auto loaded = store::loadMigrations(migrations_dir);
    if (!loaded) {
      err << "sluicectl: " << loaded.error() << "\n";
      return 2;
    }
    migrations = std::move(*loaded);
  }
  return withDatabase(database_url, err, [&](pqxx::connection& connection) {
    std::vector<int> applied_now;
    if (!status_only) applied_now = store::applyMigrations(connection, migrations);
    const store::MigrationStatus status = store::migrationStatus(connection, migrations);
    if (json) {
      nlohmann::json report = {{"applied_now", applied_now},
                               {"applied", status.applied},
                               {"pending", nlohmann::json::array()},
                               {"changed_since_applied", status.changed},
                               {"unknown", status.unknown}};
      for (const auto& migration : status.pending) report["pending"].push_back(label(migration));
      out << report.dump(2) << "\n";
    } else {
      for (const int version : applied_now) {
        for (const auto& migration : migrations) {
          if (migration.version == version) out << "applied " << label(migration) << "\n";
        }
      }
      for (const auto& migration : status.pending) out << "pending " << label(migration) << "\n";
      for (const int version : status.changed) {
        err << "sluicectl: warning: migration " << version << " was edited after it was applied; "
            << "migrations are forward-only, add a new one instead\n";
      }
      if (status.pending.empty()) {
        out << "schema up to date (" << status.applied.size() << " migration"
            << (status.applied.size() == 1 ? "" : "s") << " applied)\n";
      }
    }
    return 0;
  });
}

}  // namespace sluice::cli
