#pragma once
// ResponseItems in PostgreSQL (tables stored_responses and stored_response_items,
// migrations/0004_responses.sql). Each call is one short transaction on a leased connection;
// expiry is checked against the database's now().
//
// Thread-safe (the pool is). Throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/response_items.h"

namespace sluice::store {

class PgResponseItems : public ResponseItems {
 public:
  explicit PgResponseItems(std::shared_ptr<ConnectionPool> pool);

  std::optional<std::vector<std::string>> history(const std::string& owner, const std::string& id,
                                                  size_t max_items) override;
  std::map<std::string, std::string> items(const std::string& owner, const std::vector<std::string>& ids) override;
  void save(const ResponseRecord& record, std::chrono::hours retention) override;
  std::optional<std::string> response(const std::string& owner, const std::string& id) override;
  bool remove(const std::string& owner, const std::string& id) override;
  std::optional<ItemPage> inputItems(const std::string& owner, const std::string& id, bool ascending, size_t limit,
                                     const std::optional<std::string>& after) override;
  size_t purgeExpired() override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
