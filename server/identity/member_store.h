#pragma once
// Members: the rules for adding one (names, roles, projects, certificate subjects:
// certificate_subject.h), and add, list, find, disable and the subjects that stand for them, kept
// in a store::MemberRoster (PostgreSQL in sluicectl and the console; tests/fakes in tests). The
// Authenticator finds members through store::KeyDirectory instead.
//
// Every function makes one roster call (one transaction) and throws what the roster throws when
// the database fails. Thread-safe as the roster is.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity/caller.h"
#include "server/identity/certificate_subject.h"
#include "server/store/key_directory.h"
#include "server/store/member_roster.h"

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
  std::string source = "cli";              // where it was made: cli, console, sso or scim
  std::optional<std::string> email;        // what single sign-on or SCIM said of the person

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
// `names` in order, each once.
std::vector<std::string> withoutDuplicates(std::vector<std::string> names);
// Why `member` cannot be stored (a bad name, role or project), or nullopt when it can.
std::optional<std::string> validateMember(const NewMember& member);

// SubjectTaken: a certificate subject already stands for another member (nothing was stored).
// LastAdmin: the change would leave no enabled admin. HasHistory: a member with keys or audited
// requests is never deleted (member_admin.h).
enum class MemberErrorKind { Invalid, AlreadyExists, SubjectTaken, NoSuchMember, LastAdmin, HasHistory };
struct MemberError {
  MemberErrorKind kind = MemberErrorKind::Invalid;
  std::string message;
};

std::expected<Member, MemberError> addMember(store::MemberRoster& roster, const NewMember& member, TimePoint now);
// By name.
std::vector<Member> listMembers(store::MemberRoster& roster);
std::optional<Member> findMember(store::MemberRoster& roster, std::string_view name);

// Adds `subject` (as an operator writes it) to the subjects standing for member `name`; adding one
// the member already has succeeds. Fails with Invalid (not a subject), NoSuchMember or SubjectTaken.
// Returns the subject's stored form.
std::expected<std::string, MemberError> addCertSubject(store::MemberRoster& roster, std::string_view name,
                                                       std::string_view subject, TimePoint now);
// Removes it; false when member `name` did not have it (or `subject` is not a subject).
bool removeCertSubject(store::MemberRoster& roster, std::string_view name, std::string_view subject);

// A member a certificate subject stands for.
struct SubjectMatch {
  std::string subject;  // the stored form that matched
  Member member;
};

// The member a store row describes (an unknown role reads as Member).
Member memberOf(const store::MemberRow& row);
// The operator's message for a roster write that was refused.
MemberError memberErrorOf(const store::RosterConflict& conflict, std::string_view name);
std::vector<SubjectMatch> subjectMatchesOf(const std::vector<store::SubjectRow>& rows);

enum class DisableResult { Disabled, AlreadyDisabled, NoSuchMember };
// Sets disabled_at = now; every key of the member stops working (within the cache TTL).
DisableResult disableMember(store::MemberRoster& roster, std::string_view name, TimePoint now);

}  // namespace sluice::identity
