#pragma once
// ConsoleSessions in PostgreSQL (table console_sessions, migrations/0006_fleet.sql):
// each call one statement (or one short transaction) on a leased connection; expiry and idleness
// are checked against the database's now(). Thread-safe; throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/console_sessions.h"

namespace sluice::store {

class PgConsoleSessions : public ConsoleSessions {
 public:
  explicit PgConsoleSessions(std::shared_ptr<ConnectionPool> pool);

  void open(const SessionRow& session, std::chrono::seconds lifetime) override;
  std::optional<SessionRow> find(const std::string& id_hash, std::chrono::seconds idle) override;
  bool touch(const std::string& id_hash, std::chrono::seconds idle) override;
  void close(const std::string& id_hash) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
