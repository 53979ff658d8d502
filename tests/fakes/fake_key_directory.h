#pragma once
// KeyDirectory in memory, with PgKeyDirectory's contract: a key is found (by its hash or id) only
// with its member; findKeyForUse marks an unrevoked key used at `now` unless it was marked within
// the interval; members behind subjects come one per matching subject, in the order asked.
//
// For tests: put members, keys and sealed credentials in, revoke keys and disable members as an
// administrator would, count the lookups, and make every call throw as an unreachable database
// would. Thread-safe.

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/store/key_directory.h"

namespace sluice::fakes {

class FakeKeyDirectory : public store::KeyDirectory {
 public:
  std::optional<store::KeyMemberRow> findKeyForUse(std::string_view hash, store::TimePoint now,
                                                   std::chrono::seconds touch_interval) override;
  std::optional<store::KeyMemberRow> findKeyById(std::string_view id) override;
  std::vector<store::SubjectRow> findMembersBySubjects(const std::vector<std::string>& subjects) override;
  std::optional<store::MemberRow> findMember(std::string_view name) override;
  std::vector<store::SealedRow> sealedCredentials(std::string_view user) override;

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
  size_t lookups() const;  // calls of the five KeyDirectory methods
  void setFailing(bool failing);

 private:
  struct StoredKey {
    store::KeyRow row;
    std::string hash;
  };
  std::optional<store::KeyMemberRow> joined(const StoredKey& key) const;  // under mutex_
  void enter();  // under mutex_: counts the lookup, throws when failing

  mutable std::mutex mutex_;
  std::map<std::string, store::MemberRow, std::less<>> members_;  // by name
  std::map<std::string, StoredKey, std::less<>> keys_;            // by id
  std::map<std::string, std::vector<store::SealedRow>, std::less<>> sealed_;  // by user
  size_t lookups_ = 0;
  bool failing_ = false;
};

}  // namespace sluice::fakes
