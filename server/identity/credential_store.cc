#include "server/identity/credential_store.h"

#include <openssl/crypto.h>

namespace sluice::identity {

std::string credentialAssociatedData(std::string_view user, std::string_view credential_id) {
  std::string data = "sluice personal credential v1";
  data.push_back('\0');
  data += user;
  data.push_back('\0');
  data += credential_id;
  return data;
}

SetCredentialResult setPersonalCredential(store::CredentialLocker& locker, const Vault& vault, std::string_view user,
                                          std::string_view credential_id, std::string_view secret, TimePoint now) {
  const Sealed sealed = vault.seal(secret, credentialAssociatedData(user, credential_id));
  const store::SealedRow row{std::string(credential_id), sealed.ciphertext, sealed.nonce, sealed.key_id};
  switch (locker.upsertSealed(user, row, now)) {
    case store::SealedChange::Created: return SetCredentialResult::Created;
    case store::SealedChange::Replaced: return SetCredentialResult::Replaced;
    case store::SealedChange::NoSuchMember: break;
  }
  return SetCredentialResult::NoSuchMember;
}

std::vector<CredentialInfo> listPersonalCredentials(store::CredentialLocker& locker,
                                                    const std::optional<std::string>& user) {
  std::vector<CredentialInfo> out;
  for (store::CredentialListing& row : locker.listSealed(user)) {
    out.push_back(CredentialInfo{std::move(row.user), std::move(row.credential_id), std::move(row.key_id), row.updated_at});
  }
  return out;
}

StoredCredential storedCredentialOf(const store::SealedRow& row) {
  StoredCredential stored;
  stored.credential_id = row.credential_id;
  stored.sealed.ciphertext = row.ciphertext;
  stored.sealed.nonce = row.nonce;
  stored.sealed.key_id = row.key_id;
  return stored;
}

std::expected<RotationReport, std::string> rotateMasterKey(store::CredentialLocker& locker, const Vault& vault,
                                                           TimePoint now) {
  RotationReport report;
  const auto resealed = locker.resealAll(
      [&](const std::string& user, const store::SealedRow& row)
          -> std::expected<std::optional<store::SealedRow>, std::string> {
        const Sealed sealed = storedCredentialOf(row).sealed;
        if (sealed.key_id == vault.keyId()) {
          ++report.already_current;
          return std::nullopt;
        }
        const std::string associated = credentialAssociatedData(user, row.credential_id);
        auto plaintext = vault.open(sealed, associated);
        if (!plaintext) {
          return std::unexpected("cannot re-encrypt " + user + "/" + row.credential_id + ": " + plaintext.error() +
                                 "; nothing was changed");
        }
        const Sealed fresh = vault.seal(*plaintext, associated);
        OPENSSL_cleanse(plaintext->data(), plaintext->size());
        return store::SealedRow{row.credential_id, fresh.ciphertext, fresh.nonce, fresh.key_id};
      },
      now);
  if (!resealed) return std::unexpected(resealed.error());
  report.rotated = *resealed;
  return report;
}

}  // namespace sluice::identity
