#pragma once
// DatabaseCheck in PostgreSQL: `SELECT 1` on a leased connection, the heartbeat as an upsert into
// fleet_replicas, the fleet view as a read of it. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/database_check.h"

namespace sluice::store {

class PgDatabaseCheck : public DatabaseCheck {
 public:
  explicit PgDatabaseCheck(std::shared_ptr<ConnectionPool> pool);

  void ping() override;
  void heartbeat(const ReplicaBeat& beat) override;
  std::vector<ReplicaSeen> replicas() override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
