#pragma once
// The api_keys table as administrators change it (sluicectl keys, the console): store a new key's
// hash, list keys, revoke one. The key itself is never here: generating it, checking its member
// and project are identity's (server/identity/key_store.h).
//
// Implementations: PgKeyRegistry (migrations/0003_identity.sql), tests/fakes/fake_key_directory.h.
// Thread-safe. Environment failures (PostgreSQL down, a busy pool) throw.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/key_directory.h"

namespace sluice::store {

// A key revoke asked for, as it is afterwards.
struct RevokedKey {
  KeyRow key;
  bool changed = false;  // false: it was already revoked
};

class KeyRegistry {
 public:
  virtual ~KeyRegistry() = default;

  // Stores `key` (id, user, project, name, created_at, expires_at; the prefix is "sk-sluice-<id>",
  // revoked_at and last_used_at start empty) under `hash` (32 raw SHA-256 bytes). Returns the row
  // as stored; nullopt when the id or the hash is already taken (nothing stored).
  virtual std::optional<KeyRow> insertKey(const KeyRow& key, std::string_view hash) = 0;
  // Newest first (then by id); only `user`'s when given.
  virtual std::vector<KeyRow> listKeys(const std::optional<std::string>& user) = 0;
  // Sets revoked_at = now unless already set; nullopt when there is no key `id`.
  virtual std::optional<RevokedKey> setRevoked(std::string_view id, TimePoint now) = 0;
};

}  // namespace sluice::store
