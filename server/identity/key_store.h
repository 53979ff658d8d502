#pragma once
// API keys: create (the rules: the member exists, is enabled and is in the key's project), list,
// revoke, kept in a store::KeyRegistry; and the key records the Authenticator and the console make
// of store::KeyDirectory's rows. Keys are stored only as SHA-256 (api_keys.h).
//
// Every function throws what its store throws when the database fails. Thread-safe as the stores are.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity/api_keys.h"
#include "server/identity/caller.h"
#include "server/store/key_directory.h"
#include "server/store/key_registry.h"
#include "server/store/member_roster.h"

namespace sluice::identity {

using TimePoint = std::chrono::system_clock::time_point;

// A key as stored (store::KeyRow: id, prefix, user, project, name and its times).
struct ApiKeyInfo : store::KeyRow {
  // "revoked", "expired" (expires_at <= now) or "active".
  std::string_view status(TimePoint now) const;
};

struct NewApiKey {
  std::string user;
  std::optional<std::string> project;  // must be one of the member's projects
  std::optional<std::string> name;
  std::optional<TimePoint> expires_at;
};

struct CreatedApiKey {
  ApiKeyInfo info;
  std::string key;  // the full key: show it once, never store or log it
};

enum class KeyErrorKind { NoSuchMember, MemberDisabled, NotInProject, Invalid };
struct KeyError {
  KeyErrorKind kind = KeyErrorKind::Invalid;
  std::string message;
};

// Generates a key (a new id if the first collides) and stores its hash. Fails when the member does
// not exist or is disabled, when `project` is not one of theirs, or when expires_at is not after now.
std::expected<CreatedApiKey, KeyError> createApiKey(store::MemberRoster& members, store::KeyRegistry& keys,
                                                    const NewApiKey& key, TimePoint now);

// Newest first; only `user`'s when given.
std::vector<ApiKeyInfo> listApiKeys(store::KeyRegistry& keys, const std::optional<std::string>& user);

// The key id named by `text`: the id itself, the visible prefix "sk-sluice-<id>", or a whole key.
std::optional<std::string> keyIdFrom(std::string_view text);

enum class RevokeResult { Revoked, AlreadyRevoked, NoSuchKey };
// Sets revoked_at = now. `info` receives the key's row when it exists.
RevokeResult revokeApiKey(store::KeyRegistry& keys, std::string_view id, TimePoint now, ApiKeyInfo* info = nullptr);

// What the Authenticator needs about a key and its member, in one query.
struct KeyRecord {
  KeyHash hash{};
  ApiKeyInfo key;
  Caller caller;  // filled from the member and the key
  std::optional<TimePoint> member_disabled_at;
};

// The key a directory row describes (an unknown role reads as Member).
KeyRecord keyRecordOf(const store::KeyMemberRow& row);
// The row found by `hash` as a KeyRecord when its stored hash equals `hash` (compared again, in
// constant time); nullopt when there is no row or it does not.
std::optional<KeyRecord> verifiedKeyRecord(const std::optional<store::KeyMemberRow>& row, const KeyHash& hash);
// `hash` as the raw bytes store::KeyDirectory::findKeyForUse takes.
std::string_view hashBytes(const KeyHash& hash);

// The key with this id (8 base62 characters) with its member, whatever its state; nullopt when
// there is no such key (or its member was deleted).
std::optional<KeyRecord> findKeyById(store::KeyDirectory& directory, std::string_view id);

// Whether a key found by verifiedKeyRecord or findKeyById admits its caller at `now`: its member as a
// Caller, or why not (checked in this order). The one rule for API calls and console sessions.
enum class KeyRefusal { Unknown, Revoked, Expired, MemberDisabled };
std::expected<Caller, KeyRefusal> keyAdmits(const std::optional<KeyRecord>& record, TimePoint now);

}  // namespace sluice::identity
