#pragma once
// AdminEvents in PostgreSQL (table `admin_events`): each call one statement on one leased
// connection. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/admin_events.h"
#include "server/store/connection_pool.h"

namespace sluice::store {

class PgAdminEvents : public AdminEvents {
 public:
  explicit PgAdminEvents(std::shared_ptr<ConnectionPool> pool);

  AdminEventRow append(const AdminEventRow& event) override;
  std::vector<AdminEventRow> recent(size_t limit, const std::optional<std::string>& target) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
