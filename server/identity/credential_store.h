#pragma once
// Members' personal provider keys, sealed by the Vault (vault.h) with associated data naming the
// member and the credential, so a row's value cannot be moved to another row, and kept in a
// store::CredentialLocker (PostgreSQL in sluicectl and the console). Plaintext exists only in
// memory: the caller's string.
//
// Every function throws what the locker throws when the database fails.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity/vault.h"
#include "server/store/credential_locker.h"
#include "server/store/key_directory.h"

namespace sluice::identity {

using TimePoint = std::chrono::system_clock::time_point;

// The associated data a personal credential is sealed with.
std::string credentialAssociatedData(std::string_view user, std::string_view credential_id);

struct CredentialInfo {
  std::string user;
  std::string credential_id;
  std::string master_key_id;
  TimePoint updated_at;
};

enum class SetCredentialResult { Created, Replaced, NoSuchMember };
// Seals `secret` under the vault's current key and stores it (replacing an earlier value).
SetCredentialResult setPersonalCredential(store::CredentialLocker& locker, const Vault& vault, std::string_view user,
                                          std::string_view credential_id, std::string_view secret, TimePoint now);

// Which are set (never the values), by user and credential; only `user`'s when given.
std::vector<CredentialInfo> listPersonalCredentials(store::CredentialLocker& locker,
                                                    const std::optional<std::string>& user);

struct StoredCredential {
  std::string credential_id;
  Sealed sealed;
};
// A sealed credential as store::KeyDirectory::sealedCredentials returns it (the Authenticator
// caches these and opens one per request).
StoredCredential storedCredentialOf(const store::SealedRow& row);

struct RotationReport {
  size_t rotated = 0;          // re-sealed under the new key
  size_t already_current = 0;  // already sealed under it
};
// Re-seals every row not sealed by `vault`'s current key (store::CredentialLocker::resealAll: all
// or nothing, other writers kept out). `vault` must also hold the old key(s). Fails (nothing changed)
// when a row was sealed by a key the vault does not hold or does not authenticate.
std::expected<RotationReport, std::string> rotateMasterKey(store::CredentialLocker& locker, const Vault& vault,
                                                           TimePoint now);

}  // namespace sluice::identity
