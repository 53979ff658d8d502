#pragma once
// Members and groups as SCIM provisioning sees them (migrations/0017_directory.sql): members by
// their SCIM id, their externalId, userName or e-mail, with what the identity provider says of the
// person; groups as rows of directory_groups, and membership as the group's name in
// members.groups (what the access rules match). Rows as stored: SCIM's rules (adoption,
// uniqueness, roles) are identity's (server/identity/provisioning.h).
//
// Every member SCIM lists or names as a group member gets a SCIM id (a new UUID) the first time it
// is read here, so a member made at the CLI or by a first sign-in is one SCIM can link.
//
// Implementations: PgDirectory, tests/fakes/fake_directory.h. Thread-safe. Environment failures
// (PostgreSQL down, a busy pool) throw.

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/key_directory.h"
#include "server/store/member_roster.h"

namespace sluice::store {

// A member with the name parts only SCIM reads.
struct DirectoryUser {
  MemberRow member;
  std::optional<std::string> given_name;
  std::optional<std::string> family_name;
};

// Which members a list returns: all, or those whose field equals `value` (userName and e-mail in
// any case, as RFC 7643 makes them caseExact false; externalId and id exactly).
struct UserMatch {
  enum class Field { All, Id, UserName, ExternalId, Email, DisplayName };
  Field field = Field::All;
  std::string value;
};

struct UserPage {
  std::vector<DirectoryUser> users;  // by name
  size_t total = 0;                  // every match, not only this page
};

// What SCIM keeps of a person (the member's own columns besides role, groups and projects).
struct UserProfile {
  std::string scim_id;
  std::optional<std::string> external_id;
  std::optional<std::string> display_name;
  std::optional<std::string> given_name;
  std::optional<std::string> family_name;
  std::optional<std::string> email;
};

// A row of directory_groups.
struct GroupRow {
  std::string id;  // a UUID
  std::string display_name;
  std::optional<std::string> external_id;
  TimePoint created_at;
  TimePoint updated_at;
};

struct GroupMatch {
  enum class Field { All, Id, DisplayName, ExternalId };
  Field field = Field::All;
  std::string value;  // display names compared exactly
};

struct GroupPage {
  std::vector<GroupRow> groups;  // by display name
  size_t total = 0;
};

enum class GroupConflict { NameTaken, NoSuchGroup };

class Directory {
 public:
  virtual ~Directory() = default;

  // The member whose scim_id is `id`; nullopt when none.
  virtual std::optional<DirectoryUser> findUser(std::string_view id) = 0;
  // The member named exactly `name`.
  virtual std::optional<DirectoryUser> findUserByName(std::string_view name) = 0;
  // Gives members without a SCIM id one, then the matches from `offset` (0-based), at most `limit`.
  virtual UserPage findUsers(const UserMatch& match, size_t offset, size_t limit) = 0;
  // Stores a new member (role, groups, projects, source and profile from `user`; enabled, or
  // disabled at `user.member.disabled_at` when set). NameTaken when the name exists.
  virtual std::expected<DirectoryUser, RosterConflict> insertUser(const DirectoryUser& user, const UserProfile& profile) = 0;
  // Replaces the profile of member `name` (scim_id included). False when there is no such member.
  virtual bool updateProfile(std::string_view name, const UserProfile& profile) = 0;
  // Clears the member's scim_id and external_id (a SCIM delete of a member that must stay).
  virtual bool detachUser(std::string_view name) = 0;

  virtual std::optional<GroupRow> findGroup(std::string_view id) = 0;
  virtual std::optional<GroupRow> findGroupByName(std::string_view display_name) = 0;
  virtual GroupPage findGroups(const GroupMatch& match, size_t offset, size_t limit) = 0;
  // NameTaken when a row of that display name exists.
  virtual std::expected<GroupRow, GroupConflict> insertGroup(const GroupRow& group) = 0;
  // Renames group `id` to `name` in its row and in every member's groups (merged where a member
  // already holds `name`). Returns the members whose groups changed; NameTaken, NoSuchGroup.
  virtual std::expected<std::vector<std::string>, GroupConflict> renameGroup(std::string_view id, std::string_view name,
                                                                             TimePoint now) = 0;
  // Sets the row's external_id and updated_at = now. False when there is no such group.
  virtual bool updateGroup(std::string_view id, const std::optional<std::string>& external_id, TimePoint now) = 0;
  // Deletes row `id` and its name from every member's groups. Returns the members whose groups
  // changed; nullopt when there is no such group.
  virtual std::optional<std::vector<std::string>> deleteGroup(std::string_view id) = 0;
  // The members whose groups hold `name` (each given a SCIM id when it had none), by name.
  virtual std::vector<DirectoryUser> groupMembers(std::string_view name) = 0;
  // Adds `group` to / removes it from member `name`'s groups: true when that changed them.
  virtual bool addToGroup(std::string_view name, std::string_view group) = 0;
  virtual bool removeFromGroup(std::string_view name, std::string_view group) = 0;
};

}  // namespace sluice::store
