#pragma once
// store::Directory in memory, over a FakeKeyDirectory's members (so a member SCIM makes is the one
// the Authenticator and the roster then find) and groups of its own. The Pg implementation's
// contract: members without a SCIM id get one when listed or named as group members; userName and
// e-mail matched in any case; a rename or delete reaches every member's groups. Thread-safe.

#include <map>
#include <mutex>
#include <string>

#include "server/store/directory.h"
#include "tests/fakes/fake_key_directory.h"

namespace sluice::fakes {

class FakeDirectory : public store::Directory {
 public:
  explicit FakeDirectory(FakeKeyDirectory& members) : members_(members) {}

  std::optional<store::DirectoryUser> findUser(std::string_view id) override;
  std::optional<store::DirectoryUser> findUserByName(std::string_view name) override;
  store::UserPage findUsers(const store::UserMatch& match, size_t offset, size_t limit) override;
  std::expected<store::DirectoryUser, store::RosterConflict> insertUser(const store::DirectoryUser& user,
                                                                        const store::UserProfile& profile) override;
  bool updateProfile(std::string_view name, const store::UserProfile& profile) override;
  bool detachUser(std::string_view name) override;

  std::optional<store::GroupRow> findGroup(std::string_view id) override;
  std::optional<store::GroupRow> findGroupByName(std::string_view display_name) override;
  store::GroupPage findGroups(const store::GroupMatch& match, size_t offset, size_t limit) override;
  std::expected<store::GroupRow, store::GroupConflict> insertGroup(const store::GroupRow& group) override;
  std::expected<std::vector<std::string>, store::GroupConflict> renameGroup(std::string_view id, std::string_view name,
                                                                            store::TimePoint now) override;
  bool updateGroup(std::string_view id, const std::optional<std::string>& external_id, store::TimePoint now) override;
  std::optional<std::vector<std::string>> deleteGroup(std::string_view id) override;
  std::vector<store::DirectoryUser> groupMembers(std::string_view name) override;
  bool addToGroup(std::string_view name, std::string_view group) override;
  bool removeFromGroup(std::string_view name, std::string_view group) override;

 private:
  struct Names {
    std::optional<std::string> given;
    std::optional<std::string> family;
  };
  store::DirectoryUser userOf(const store::MemberRow& member) const;  // under mutex_
  void assignIds();                                                  // under mutex_

  FakeKeyDirectory& members_;
  mutable std::mutex mutex_;
  std::map<std::string, Names, std::less<>> names_;              // by member name
  std::map<std::string, store::GroupRow, std::less<>> groups_;  // by id
  int next_id_ = 0;
};

}  // namespace sluice::fakes
