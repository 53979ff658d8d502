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

}  // namespace sluice::store
