#pragma once
// The members table as administrators change it (sluicectl users, the console): add a member with
// the certificate subjects standing for them, list, find, disable, and add or remove a subject.
// Rows as stored: names, roles and subjects are checked before they get here (identity's
// member_store.h holds the rules); the roster only keeps each write whole and each subject with
// one member.
//
// Implementations: PgMemberRoster (migrations/0003_identity.sql, 0008), tests/fakes/fake_key_directory.h
// (one in-memory table set behind every identity interface). Thread-safe. Environment failures
// (PostgreSQL down, a busy pool) throw.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/key_directory.h"

namespace sluice::store {

// Why a roster write was not made (nothing of it was stored).
struct RosterConflict {
  enum class Kind { NameTaken, SubjectTaken, NoSuchMember };
  Kind kind = Kind::NameTaken;
  std::string subject;  // SubjectTaken: the subject, and the member it already stands for
  std::string holder;
};

enum class DisableChange { Disabled, AlreadyDisabled, NoSuchMember };

class MemberRoster {
 public:
  virtual ~MemberRoster() = default;

  // Stores `member` (disabled_at ignored: a new member is enabled) with its cert_subjects (stored
  // forms, distinct), all or nothing. Returns the member as stored (subjects sorted). NameTaken
  // when a member of that name exists; SubjectTaken when a subject stands for another member.
  virtual std::expected<MemberRow, RosterConflict> insertMember(const MemberRow& member) = 0;
  // Every member, by name.
  virtual std::vector<MemberRow> listMembers() = 0;
  virtual std::optional<MemberRow> findMember(std::string_view name) = 0;
  // Makes `subject` (stored form) stand for member `name` at `now`: true when added, false when it
  // already did. NoSuchMember, or SubjectTaken when it stands for another member.
  virtual std::expected<bool, RosterConflict> insertSubject(std::string_view name, std::string_view subject,
                                                            TimePoint now) = 0;
  // False when `subject` did not stand for member `name`.
  virtual bool deleteSubject(std::string_view name, std::string_view subject) = 0;
  // Sets disabled_at = now unless already set.
  virtual DisableChange setDisabled(std::string_view name, TimePoint now) = 0;
};

}  // namespace sluice::store
