#pragma once
// CredentialLocker in PostgreSQL (table `personal_credentials`): resealAll() is one transaction
// that locks the table against other writers. Thread-safe (the pool is); throws pqxx errors /
// PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/credential_locker.h"

namespace sluice::store {

class PgCredentialLocker : public CredentialLocker {
 public:
  explicit PgCredentialLocker(std::shared_ptr<ConnectionPool> pool);

  SealedChange upsertSealed(std::string_view user, const SealedRow& sealed, TimePoint now) override;
  std::vector<CredentialListing> listSealed(const std::optional<std::string>& user) override;
  std::expected<size_t, std::string> resealAll(const Resealer& reseal, TimePoint now) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
