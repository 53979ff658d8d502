#pragma once
// Members' sealed personal credentials (table `personal_credentials`) as sluicectl changes them:
// store one, list which are set, re-seal them all under a new master key. Only sealed bytes
// cross here; sealing and opening are identity's (server/identity/credential_store.h).
//
// Implementations: PgCredentialLocker (migrations/0003_identity.sql), tests/fakes/fake_key_directory.h.
// Thread-safe. Environment failures (PostgreSQL down, a busy pool) throw.

#include <cstddef>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/key_directory.h"

namespace sluice::store {

// Which credential is set (never its value).
struct CredentialListing {
  std::string user;
  std::string credential_id;
  std::string key_id;  // the master key it is sealed under
  TimePoint updated_at;
};

enum class SealedChange { Created, Replaced, NoSuchMember };

// Given a stored row (`user`, its sealed credential), the row re-sealed, nullopt to leave it as
// it is, or why it cannot be (which stops the whole re-sealing).
using Resealer = std::function<std::expected<std::optional<SealedRow>, std::string>(const std::string& user,
                                                                                    const SealedRow& sealed)>;

class CredentialLocker {
 public:
  virtual ~CredentialLocker() = default;

  // Stores `sealed` as member `user`'s credential `sealed.credential_id` at `now`, replacing an
  // earlier value.
  virtual SealedChange upsertSealed(std::string_view user, const SealedRow& sealed, TimePoint now) = 0;
  // By user, then credential id; only `user`'s when given.
  virtual std::vector<CredentialListing> listSealed(const std::optional<std::string>& user) = 0;
  // Calls `reseal` on every row, by user then credential id, and stores what it returns, all or
  // nothing: no other write to the table runs meanwhile, and the first error leaves every row as
  // it was and is returned. Returns how many rows were re-sealed.
  virtual std::expected<size_t, std::string> resealAll(const Resealer& reseal, TimePoint now) = 0;
};

}  // namespace sluice::store
