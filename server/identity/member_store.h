#pragma once
// Members in PostgreSQL (table `members`, migrations/0003_identity.sql): add, list, find, disable.
// Used by sluicectl and, through the key lookup in key_store.h, by the Authenticator.
//
// Every function runs on the connection it is given (one statement or one transaction) and throws
// pqxx errors when PostgreSQL fails. Not thread-safe beyond what the connection is.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/pqxx>

#include "server/identity/caller.h"

namespace sluice::identity {

using TimePoint = std::chrono::system_clock::time_point;

struct Member {
  std::string name;
  Role role = Role::Member;
  std::vector<std::string> groups;
  std::vector<std::string> projects;
  std::optional<std::string> primary_project;
  std::optional<TimePoint> disabled_at;
  TimePoint created_at;

  bool disabled() const { return disabled_at.has_value(); }
};

struct NewMember {
  std::string name;
  Role role = Role::Member;
  std::vector<std::string> groups;    // duplicates are dropped
  std::vector<std::string> projects;  // duplicates are dropped
  std::optional<std::string> primary_project;  // must be one of `projects`
};

// Names of members, groups and projects: a letter or digit, then letters, digits and . _ @ + -,
// at most 128 characters.
bool validName(std::string_view name);
// Why `member` cannot be stored (a bad name, role or project), or nullopt when it can.
std::optional<std::string> validateMember(const NewMember& member);

enum class MemberErrorKind { Invalid, AlreadyExists };
struct MemberError {
  MemberErrorKind kind = MemberErrorKind::Invalid;
  std::string message;
};

std::expected<Member, MemberError> addMember(pqxx::connection& connection, const NewMember& member, TimePoint now);
// By name.
std::vector<Member> listMembers(pqxx::connection& connection);
std::optional<Member> findMember(pqxx::connection& connection, std::string_view name);

enum class DisableResult { Disabled, AlreadyDisabled, NoSuchMember };
// Sets disabled_at = now; every key of the member stops working (within the cache TTL).
DisableResult disableMember(pqxx::connection& connection, std::string_view name, TimePoint now);

}  // namespace sluice::identity
