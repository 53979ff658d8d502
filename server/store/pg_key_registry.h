#pragma once
// KeyRegistry in PostgreSQL (table `api_keys`): each call one statement or one transaction on one
// leased connection. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/key_registry.h"

namespace sluice::store {

class PgKeyRegistry : public KeyRegistry {
 public:
  explicit PgKeyRegistry(std::shared_ptr<ConnectionPool> pool);

  std::optional<KeyRow> insertKey(const KeyRow& key, std::string_view hash) override;
  std::vector<KeyRow> listKeys(const std::optional<std::string>& user) override;
  std::optional<RevokedKey> setRevoked(std::string_view id, TimePoint now) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
