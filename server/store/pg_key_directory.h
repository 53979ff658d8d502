#pragma once
// KeyDirectory in PostgreSQL: each call one leased connection (the key lookup and its
// last_used_at refresh share it). Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/key_directory.h"

namespace sluice::store {

class PgKeyDirectory : public KeyDirectory {
 public:
  explicit PgKeyDirectory(std::shared_ptr<ConnectionPool> pool);

  std::optional<KeyMemberRow> findKeyForUse(std::string_view hash, TimePoint now,
                                            std::chrono::seconds touch_interval) override;
  std::optional<KeyMemberRow> findKeyById(std::string_view id) override;
  std::vector<SubjectRow> findMembersBySubjects(const std::vector<std::string>& subjects) override;
  std::optional<MemberRow> findMember(std::string_view name) override;
  std::vector<SealedRow> sealedCredentials(std::string_view user) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
