#pragma once
// Directory in PostgreSQL (members, directory_groups): each call one transaction on one leased
// connection. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/directory.h"

namespace sluice::store {

class PgDirectory : public Directory {
 public:
  explicit PgDirectory(std::shared_ptr<ConnectionPool> pool);

  std::optional<DirectoryUser> findUser(std::string_view id) override;
  std::optional<DirectoryUser> findUserByName(std::string_view name) override;
  UserPage findUsers(const UserMatch& match, size_t offset, size_t limit) override;
  std::expected<DirectoryUser, RosterConflict> insertUser(const DirectoryUser& user, const UserProfile& profile) override;
  bool updateProfile(std::string_view name, const UserProfile& profile) override;
  bool detachUser(std::string_view name) override;

  std::optional<GroupRow> findGroup(std::string_view id) override;
  std::optional<GroupRow> findGroupByName(std::string_view display_name) override;
  GroupPage findGroups(const GroupMatch& match, size_t offset, size_t limit) override;
  std::expected<GroupRow, GroupConflict> insertGroup(const GroupRow& group) override;
  std::expected<std::vector<std::string>, GroupConflict> renameGroup(std::string_view id, std::string_view name,
                                                                     TimePoint now) override;
  bool updateGroup(std::string_view id, const std::optional<std::string>& external_id, TimePoint now) override;
  std::optional<std::vector<std::string>> deleteGroup(std::string_view id) override;
  std::vector<DirectoryUser> groupMembers(std::string_view name) override;
  bool addToGroup(std::string_view name, std::string_view group) override;
  bool removeFromGroup(std::string_view name, std::string_view group) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
