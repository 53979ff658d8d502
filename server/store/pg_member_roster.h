#pragma once
// MemberRoster in PostgreSQL (tables `members` and `member_subjects`): each write one transaction
// on one leased connection. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/member_roster.h"

namespace sluice::store {

class PgMemberRoster : public MemberRoster {
 public:
  explicit PgMemberRoster(std::shared_ptr<ConnectionPool> pool);

  std::expected<MemberRow, RosterConflict> insertMember(const MemberRow& member) override;
  std::vector<MemberRow> listMembers() override;
  std::optional<MemberRow> findMember(std::string_view name) override;
  std::expected<bool, RosterConflict> insertSubject(std::string_view name, std::string_view subject,
                                                    TimePoint now) override;
  bool deleteSubject(std::string_view name, std::string_view subject) override;
  DisableChange setDisabled(std::string_view name, TimePoint now) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
