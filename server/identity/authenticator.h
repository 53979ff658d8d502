#pragma once
// Turns the API key a request presents into a Caller (or the names of a verified client
// certificate, or a trusted proxy's header: authenticateCertificate, authenticateProxy), and hands
// out members' personal provider keys, for the request threads of the gateway.
//
// Cache: a lookup by key hash is remembered for `cache_ttl` (at most 2 s), positive or negative,
// so the hot path reaches the key directory (store::KeyDirectory: PostgreSQL in the server) about
// once per key per TTL per replica. Revocation, member
// disabling and deletion are therefore seen by every replica within the TTL; expiry is checked
// against `now` on every call, so an expired key stops at once. Time is only ever the `now`
// passed in (tests move it; the server passes the system clock). An entry stamped more than the
// TTL before `now`, or after it (the clock went back), is refetched.
//
// Thread-safe: any number of threads or fibers may call any method. The cache lock is never held
// across database I/O. Misses of the same key at the same time make one query (single flight): the
// first caller asks the directory, the others wait for its answer (parking their fiber, or on a
// condition variable off one) and share it, or the error it threw. A burst of connections
// presenting a key the cache has not seen yet costs one lookup, not one per connection.
//
// Failures: expected outcomes (no key, a malformed, unknown, revoked or expired key, a disabled
// member, a personal key not set) are values. PostgreSQL being unreachable or a busy pool throws
// what the directory throws (environment failures, told apart by store/database_failure.h: the
// handler answers 500/503). Messages never contain the presented key or any part of it beyond a stored key's
// public prefix.

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/identity/caller.h"
#include "server/identity/credential_store.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/identity/vault.h"
#include "server/store/key_directory.h"

namespace sluice::identity {

using TimePoint = std::chrono::system_clock::time_point;

enum class AuthFailureReason {
  Missing, Malformed, Unknown, Revoked, Expired, MemberDisabled,
  UnmappedCertificate,   // a verified certificate whose names stand for no member
  AmbiguousCertificate,  // its names stand for two or more members
  UnknownMember,         // a trusted proxy named no member
};
// "missing_key" | "malformed_key" | "unknown_key" | "revoked_key" | "expired_key" | "member_disabled" |
// "unmapped_certificate" | "ambiguous_certificate" | "unknown_member".
std::string_view toString(AuthFailureReason reason);

// Every failure is HTTP 401 in the caller's format.
struct AuthFailure {
  AuthFailureReason reason = AuthFailureReason::Missing;
  std::string message;
};

enum class CredentialFailureReason { NotSet, NoMasterKey, Undecryptable };
struct CredentialFailure {
  CredentialFailureReason reason = CredentialFailureReason::NotSet;
  std::string message;  // names the member and the credential, never a value
};

struct AuthenticatorOptions {
  std::chrono::milliseconds cache_ttl{2000};  // clamped to 2 s
  size_t max_cache_entries = 100'000;         // per cache; beyond it stale entries go, then all
  std::chrono::seconds last_used_interval{60};  // api_keys.last_used_at is refreshed this often at most
};

class Authenticator {
 public:
  // `vault`: nullptr when no master key is configured (personalKey then fails with NoMasterKey).
  Authenticator(std::shared_ptr<store::KeyDirectory> directory, std::shared_ptr<const Vault> vault,
                AuthenticatorOptions options = {});

  // `presented_key`: presentedKey(Authorization, x-api-key) (api_keys.h); empty → Missing.
  std::expected<Caller, AuthFailure> authenticate(std::string_view presented_key, TimePoint now);

  // The member a verified client certificate stands for. `subjects`: subjectsOf() of its names
  // (certificate_subject.h). Failures: UnmappedCertificate (none, or no usable name),
  // AmbiguousCertificate (two members), MemberDisabled. Cached like keys (same TTL), by the names.
  std::expected<Caller, AuthFailure> authenticateCertificate(const std::vector<std::string>& subjects, TimePoint now);
  // The member a trusted proxy's header names: `value` is the member's name (`by_email` false) or
  // an e-mail address standing for the member (`by_email`: an `email:` certificate subject).
  // Failures: UnknownMember, MemberDisabled. The caller must already have checked that the
  // connection comes from a trusted proxy.
  std::expected<Caller, AuthFailure> authenticateProxy(std::string_view value, bool by_email, TimePoint now);

  // The credential ids `user` has stored a personal key for (names only).
  std::vector<std::string> credentialsFor(const std::string& user, TimePoint now);
  // The decrypted personal key of `user` for `credential_id`. The returned string is the only
  // copy of the plaintext: the cache holds sealed values.
  std::expected<std::string, CredentialFailure> personalKey(const std::string& user, const std::string& credential_id,
                                                            TimePoint now);

  // Drops every cached entry (tests; an admin action that must take effect at once).
  void forgetAll();

  struct Stats {
    uint64_t key_lookups = 0;         // authenticate() calls that reached the key cache
    uint64_t key_queries = 0;         // of those, the ones that went to the directory
    uint64_t key_shared = 0;          // of those, misses that waited for another caller's query
    uint64_t credential_queries = 0;  // personal credential loads from the directory
    uint64_t member_queries = 0;      // certificate / proxy member lookups that went to the directory
  };
  Stats stats() const;

 private:
  struct KeyEntry {
    TimePoint fetched_at;
    std::optional<KeyRecord> record;  // nullopt: no such key (negative entry)
  };
  // A lookup under way: what callers missing the same key wait on.
  struct KeyFlight;
  struct MemberEntry {
    TimePoint fetched_at;
    std::vector<SubjectMatch> matches;
  };
  struct CredentialEntry {
    TimePoint fetched_at;
    std::vector<StoredCredential> stored;
  };

  bool fresh(TimePoint fetched_at, TimePoint now) const;
  std::optional<KeyRecord> lookupKey(const KeyHash& hash, TimePoint now);
  std::vector<StoredCredential> lookupCredentials(const std::string& user, TimePoint now);
  // By `subjects` (stored forms), or by member name when `name` is set.
  std::vector<SubjectMatch> lookupMembers(const std::vector<std::string>& subjects, const std::string* name,
                                          TimePoint now);
  template <class Map>
  void makeRoom(Map& map, TimePoint now);

  std::shared_ptr<store::KeyDirectory> directory_;
  std::shared_ptr<const Vault> vault_;
  AuthenticatorOptions options_;

  mutable std::mutex mutex_;
  std::unordered_map<std::string, KeyEntry> keys_;  // by the 32 hash bytes
  std::unordered_map<std::string, CredentialEntry> credentials_;  // by user
  std::unordered_map<std::string, MemberEntry> members_;  // by "s\n" + subjects, or "n\n" + name
  std::unordered_map<std::string, std::shared_ptr<KeyFlight>> key_flights_;  // by the 32 hash bytes
  Stats stats_;
};

}  // namespace sluice::identity
