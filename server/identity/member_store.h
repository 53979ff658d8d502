#pragma once
// Members in PostgreSQL (table `members`, migrations/0003_identity.sql): add, list, find, disable;
// and the certificate subjects that stand for them (table `member_subjects`, migration 0008;
// certificate_subject.h). Used by sluicectl and, through the key lookup in key_store.h and the
// subject lookup below, by the Authenticator.
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
#include "server/identity/certificate_subject.h"
#include "server/store/key_directory.h"

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
  std::vector<std::string> cert_subjects;  // stored forms ("cn:alice"), sorted

  bool disabled() const { return disabled_at.has_value(); }
};

struct NewMember {
  std::string name;
  Role role = Role::Member;
  std::vector<std::string> groups;    // duplicates are dropped
  std::vector<std::string> projects;  // duplicates are dropped
  std::optional<std::string> primary_project;  // must be one of `projects`
  // Certificate subjects as an operator writes them (parseCertSubject); stored normalised,
  // duplicates dropped. Each may stand for one member only.
  std::vector<std::string> cert_subjects;
};

// Names of members, groups and projects: a letter or digit, then letters, digits and . _ @ + -,
// at most 128 characters.
bool validName(std::string_view name);
// Why `member` cannot be stored (a bad name, role or project), or nullopt when it can.
std::optional<std::string> validateMember(const NewMember& member);

// SubjectTaken: a certificate subject already stands for another member (nothing was stored).
enum class MemberErrorKind { Invalid, AlreadyExists, SubjectTaken, NoSuchMember };
struct MemberError {
  MemberErrorKind kind = MemberErrorKind::Invalid;
  std::string message;
};

std::expected<Member, MemberError> addMember(pqxx::connection& connection, const NewMember& member, TimePoint now);
// By name.
std::vector<Member> listMembers(pqxx::connection& connection);
std::optional<Member> findMember(pqxx::connection& connection, std::string_view name);

// Adds `subject` (as an operator writes it) to the subjects standing for member `name`; adding one
// the member already has succeeds. Fails with Invalid (not a subject), NoSuchMember or SubjectTaken.
std::expected<std::string, MemberError> addCertSubject(pqxx::connection& connection, std::string_view name,
                                                       std::string_view subject, TimePoint now);
// Removes it; false when member `name` did not have it.
bool removeCertSubject(pqxx::connection& connection, std::string_view name, std::string_view subject);

// A member a certificate subject stands for.
struct SubjectMatch {
  std::string subject;  // the stored form that matched
  Member member;
};
// The members standing behind any of `subjects` (stored forms, subjectsOf()), one row per
// matching subject, in the order of `subjects`.
std::vector<SubjectMatch> findMembersBySubjects(pqxx::connection& connection,
                                                const std::vector<std::string>& subjects);

// The member a store row describes (an unknown role reads as Member).
Member memberOf(const store::MemberRow& row);
std::vector<SubjectMatch> subjectMatchesOf(const std::vector<store::SubjectRow>& rows);

enum class DisableResult { Disabled, AlreadyDisabled, NoSuchMember };
// Sets disabled_at = now; every key of the member stops working (within the cache TTL).
DisableResult disableMember(pqxx::connection& connection, std::string_view name, TimePoint now);

}  // namespace sluice::identity
