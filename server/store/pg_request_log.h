#pragma once
// RequestLog in PostgreSQL (table ai_requests): each call one statement on a leased connection.
// Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/request_log.h"

namespace sluice::store {

class PgRequestLog : public RequestLog {
 public:
  explicit PgRequestLog(std::shared_ptr<ConnectionPool> pool);

  std::vector<nlohmann::json> page(const RequestPageQuery& query) override;
  std::vector<nlohmann::json> latest() override;
  std::vector<nlohmann::json> byIdPrefix(const std::string& prefix, int limit) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
