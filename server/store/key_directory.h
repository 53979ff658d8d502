#pragma once
// What the request path asks about callers on every cache miss: the API key behind a key hash
// (with its member), the members behind certificate subjects or a name, and a member's sealed
// personal credentials. Rows as stored: turning them into a Caller, comparing hashes in constant
// time, deciding whether a key admits and caching are identity's (server/identity/authenticator.h).
//
// Implementations: PgKeyDirectory (migrations/0003_identity.sql, 0008), tests/fakes/fake_key_directory.h.
// Thread-safe. Environment failures (PostgreSQL down, a busy pool) throw.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::store {

using TimePoint = std::chrono::system_clock::time_point;

// A row of `members`, with the certificate subjects standing for it.
struct MemberRow {
  std::string name;
  std::string role;  // "member" | "admin"
  std::vector<std::string> groups;
  std::vector<std::string> projects;
  std::optional<std::string> primary_project;
  std::optional<TimePoint> disabled_at;
  TimePoint created_at;
  std::vector<std::string> cert_subjects;  // stored forms, sorted
  // Where the member was made (migrations/0017_directory.sql): "cli", "console", "sso" or "scim".
  std::string source = "cli";
  // SCIM's view of the member: its resource id (a UUID), the identity provider's id for it and
  // what it says of the person; unset for members SCIM and SSO never saw.
  std::optional<std::string> scim_id;
  std::optional<std::string> external_id;
  std::optional<std::string> display_name;
  std::optional<std::string> email;
};

// A row of `api_keys` (never the key; its hash only in KeyMemberRow).
struct KeyRow {
  std::string id;      // 8 base62 characters: the api_key_id of audit rows
  std::string prefix;  // "sk-sluice-<id>"
  std::string user;
  std::optional<std::string> project;
  std::optional<std::string> name;
  TimePoint created_at;
  std::optional<TimePoint> expires_at;
  std::optional<TimePoint> revoked_at;
  std::optional<TimePoint> last_used_at;
};

// A key with what the request path needs of its member.
struct KeyMemberRow {
  KeyRow key;
  std::string hash;  // the stored SHA-256, raw bytes
  std::string role;
  std::vector<std::string> groups;
  std::vector<std::string> projects;
  std::optional<std::string> primary_project;
  std::optional<TimePoint> member_disabled_at;
};

// A member a certificate subject stands for.
struct SubjectRow {
  std::string subject;  // the stored form that matched
  MemberRow member;
};

// One sealed personal credential (identity::Sealed's parts).
struct SealedRow {
  std::string credential_id;
  std::string ciphertext;
  std::string nonce;
  std::string key_id;
};

class KeyDirectory {
 public:
  virtual ~KeyDirectory() = default;

  // The key whose stored hash is `hash` (32 raw bytes), with its member; nullopt when none (or its
  // member was deleted). A found key that is not revoked is marked used at `now`, unless it was
  // marked within `touch_interval` (last_used_at is for people: "is this key still used?").
  virtual std::optional<KeyMemberRow> findKeyForUse(std::string_view hash, TimePoint now,
                                                    std::chrono::seconds touch_interval) = 0;
  // The key with this id, whatever its state, with its member; nullopt when none.
  virtual std::optional<KeyMemberRow> findKeyById(std::string_view id) = 0;
  // The members behind any of `subjects` (stored forms), one row per matching subject, in the
  // order of `subjects`.
  virtual std::vector<SubjectRow> findMembersBySubjects(const std::vector<std::string>& subjects) = 0;
  virtual std::optional<MemberRow> findMember(std::string_view name) = 0;
  // Every sealed personal credential of `user`.
  virtual std::vector<SealedRow> sealedCredentials(std::string_view user) = 0;
};

}  // namespace sluice::store
