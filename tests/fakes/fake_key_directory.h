#pragma once
// The identity tables in memory, behind the four interfaces their PostgreSQL implementations put
// over the same tables: KeyDirectory (the request path's reads), MemberRoster, KeyRegistry and
// CredentialLocker (an administrator's writes), so a member added and a key created through
// identity's functions is the member and key the Authenticator then finds. Each has its Pg
// implementation's contract (tests/server/store/identity_tables_test.cc runs both): a key is found
// (by its hash or id) only with its member; findKeyForUse marks an unrevoked key used at `now`
// unless it was marked within the interval; members behind subjects come one per matching subject,
// in the order asked; every write is whole or not at all.
//
// For tests: put members, keys and sealed credentials in directly, revoke keys and disable members
// as an administrator would, count the lookups, and make every call throw as an unreachable
// database would. Thread-safe.

#include <cstddef>
#include <expected>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/store/credential_locker.h"
#include "server/store/key_directory.h"
#include "server/store/key_registry.h"
#include "server/store/member_roster.h"

namespace sluice::fakes {

class FakeKeyDirectory : public store::KeyDirectory,
                         public store::MemberRoster,
                         public store::KeyRegistry,
                         public store::CredentialLocker {
 public:
  // KeyDirectory (findMember is MemberRoster's too).
  std::optional<store::KeyMemberRow> findKeyForUse(std::string_view hash, store::TimePoint now,
                                                   std::chrono::seconds touch_interval) override;
  std::optional<store::KeyMemberRow> findKeyById(std::string_view id) override;
  std::vector<store::SubjectRow> findMembersBySubjects(const std::vector<std::string>& subjects) override;
  std::optional<store::MemberRow> findMember(std::string_view name) override;
  std::vector<store::SealedRow> sealedCredentials(std::string_view user) override;

  // MemberRoster (fake_identity_writes.cc).
  std::expected<store::MemberRow, store::RosterConflict> insertMember(const store::MemberRow& member) override;
  std::vector<store::MemberRow> listMembers() override;
  std::expected<bool, store::RosterConflict> insertSubject(std::string_view name, std::string_view subject,
                                                           store::TimePoint now) override;
  bool deleteSubject(std::string_view name, std::string_view subject) override;
  store::DisableChange setDisabled(std::string_view name, store::TimePoint now) override;

  // KeyRegistry (fake_identity_writes.cc).
  std::optional<store::KeyRow> insertKey(const store::KeyRow& key, std::string_view hash) override;
  std::vector<store::KeyRow> listKeys(const std::optional<std::string>& user) override;
  std::optional<store::RevokedKey> setRevoked(std::string_view id, store::TimePoint now) override;

  // CredentialLocker (fake_identity_writes.cc).
  store::SealedChange upsertSealed(std::string_view user, const store::SealedRow& sealed,
                                   store::TimePoint now) override;
  std::vector<store::CredentialListing> listSealed(const std::optional<std::string>& user) override;
  std::expected<size_t, std::string> resealAll(const store::Resealer& reseal, store::TimePoint now) override;

  // Adds or replaces the member `member.name` (its cert_subjects stand for it).
  void putMember(store::MemberRow member);
  void deleteMember(const std::string& name);
  void disableMember(const std::string& name, store::TimePoint at);
  // Adds or replaces the key `key.id`, stored under `hash` (raw SHA-256 bytes).
  void putKey(store::KeyRow key, std::string hash);
  void revokeKey(const std::string& id, store::TimePoint at);
  void putSealed(const std::string& user, store::SealedRow sealed);

  // The key as stored (last_used_at included); throws std::out_of_range when there is none.
  store::KeyRow key(const std::string& id) const;
  size_t lookups() const;  // calls of the five KeyDirectory methods and of the writers' methods
  void setFailing(bool failing);

 private:
  struct StoredKey {
    store::KeyRow row;
    std::string hash;
  };
  struct StoredSealed {
    store::SealedRow row;
    store::TimePoint updated_at;
  };
  std::optional<store::KeyMemberRow> joined(const StoredKey& key) const;  // under mutex_
  // Under mutex_: the member `subject` stands for, if any.
  const store::MemberRow* holderOf(std::string_view subject) const;
  void enter();  // under mutex_: counts the lookup, throws when failing

  mutable std::mutex mutex_;
  std::map<std::string, store::MemberRow, std::less<>> members_;  // by name
  std::map<std::string, StoredKey, std::less<>> keys_;            // by id
  std::map<std::string, std::vector<StoredSealed>, std::less<>> sealed_;  // by user, in credential order
  size_t lookups_ = 0;
  bool failing_ = false;
};

}  // namespace sluice::fakes
