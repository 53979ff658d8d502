#include "server/store/pg_database_check.h"

namespace sluice::store {

PgDatabaseCheck::PgDatabaseCheck(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

void PgDatabaseCheck::ping() {
  pool_->run([](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    query.exec1("SELECT 1");
  });
}

void PgDatabaseCheck::heartbeat(const ReplicaBeat& beat) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    transaction.exec_params(
        "INSERT INTO fleet_replicas (name, catalog_version, started_at, last_seen, draining)"
        " VALUES ($1, $2, to_timestamp($3), now(), $4)"
        " ON CONFLICT (name) DO UPDATE SET catalog_version = EXCLUDED.catalog_version,"
        " started_at = EXCLUDED.started_at, last_seen = now(), draining = EXCLUDED.draining",
        beat.name, beat.catalog_version, std::chrono::duration<double>(beat.started_at.time_since_epoch()).count(),
        beat.draining);
    transaction.exec("DELETE FROM fleet_replicas WHERE last_seen < now() - interval '1 day'");
    transaction.commit();
  });
}

std::vector<ReplicaSeen> PgDatabaseCheck::replicas() {
  return pool_->run([&](pqxx::connection& connection) {
    std::vector<ReplicaSeen> seen;
    pqxx::read_transaction query(connection);
    for (const auto& row : query.exec(
             "SELECT name, catalog_version, extract(epoch FROM now() - last_seen)::float8,"
             " extract(epoch FROM now() - started_at)::float8, draining FROM fleet_replicas"
             " WHERE last_seen > now() - interval '1 minute' ORDER BY name")) {
      seen.push_back(ReplicaSeen{row[0].c_str(), row[1].c_str(), row[2].as<double>(), row[3].as<double>(),
                                 row[4].as<bool>()});
    }
    return seen;
  });
}

}  // namespace sluice::store
