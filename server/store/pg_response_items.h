#pragma once
// ResponseItems in PostgreSQL (tables stored_responses and stored_response_items,
// migrations/0004_responses.sql, 0012_responses_links.sql). Each call is one short transaction on a
// leased connection; expiry is checked against the database's now(). inlineItems() sums and reads
// in one REPEATABLE READ snapshot, so what it read is what it summed.
//
// Thread-safe (the pool is). Throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/response_items.h"

namespace sluice::store {

class PgResponseItems : public ResponseItems {
 public:
  explicit PgResponseItems(std::shared_ptr<ConnectionPool> pool);

  InlineRead inlineItems(const InlineQuery& query, const std::function<bool(size_t)>& charge) override;
  bool save(const ResponseRecord& record, std::chrono::hours retention) override;
  std::optional<std::string> response(const std::string& owner, const std::string& id) override;
  bool remove(const std::string& owner, const std::string& id) override;
  std::optional<ItemPage> inputItems(const std::string& owner, const std::string& id, bool ascending, size_t limit,
                                     const std::optional<std::string>& after) override;
  size_t purgeExpired() override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
