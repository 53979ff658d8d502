#include "server/identity/credential_store.h"

#include <openssl/crypto.h>

#include "server/store/sql_values.h"

namespace sluice::identity {

namespace sql = store::sql;

namespace {

pqxx::binarystring binary(const std::string& bytes) { return pqxx::binarystring(bytes.data(), bytes.size()); }

}  // namespace

std::string credentialAssociatedData(std::string_view user, std::string_view credential_id) {
  std::string data = "sluice personal credential v1";
  data.push_back('\0');
  data += user;
  data.push_back('\0');
  data += credential_id;
  return data;
}

SetCredentialResult setPersonalCredential(pqxx::connection& connection, const Vault& vault, std::string_view user,
                                          std::string_view credential_id, std::string_view secret, TimePoint now) {
  const Sealed sealed = vault.seal(secret, credentialAssociatedData(user, credential_id));
  pqxx::work transaction(connection);
  if (transaction.exec_params("SELECT 1 FROM members WHERE name = $1", std::string(user)).empty()) {
    return SetCredentialResult::NoSuchMember;
  }
  const auto row = transaction.exec_params1(
      "INSERT INTO personal_credentials AS c (user_name, credential_id, ciphertext, nonce, master_key_id, updated_at) "
      "VALUES ($1, $2, $3, $4, $5, " +
          sql::timestampParam(6) +
          ") ON CONFLICT (user_name, credential_id) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, "
          "nonce = EXCLUDED.nonce, master_key_id = EXCLUDED.master_key_id, updated_at = EXCLUDED.updated_at "
          "RETURNING (xmax = 0)",
      std::string(user), std::string(credential_id), binary(sealed.ciphertext), binary(sealed.nonce), sealed.key_id,
      sql::micros(now));
  transaction.commit();
  // xmax = 0 on the returned row means it was inserted, not updated.
  return row[0].as<bool>() ? SetCredentialResult::Created : SetCredentialResult::Replaced;
}

std::vector<CredentialInfo> listPersonalCredentials(pqxx::connection& connection,
                                                    const std::optional<std::string>& user) {
  pqxx::read_transaction transaction(connection);
  const auto rows = transaction.exec_params("SELECT user_name, credential_id, master_key_id, " +
                                                sql::microsOf("updated_at") +
                                                " FROM personal_credentials WHERE $1::text IS NULL OR user_name = $1 "
                                                "ORDER BY user_name, credential_id",
                                            user);
  std::vector<CredentialInfo> out;
  for (const auto& row : rows) {
    CredentialInfo info;
    info.user = row[0].as<std::string>();
    info.credential_id = row[1].as<std::string>();
    info.master_key_id = row[2].as<std::string>();
    info.updated_at = sql::timeOf(row[3]);
    out.push_back(std::move(info));
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

std::expected<RotationReport, std::string> rotateMasterKey(pqxx::connection& connection, const Vault& vault,
                                                           TimePoint now) {
  pqxx::work transaction(connection);
  // Locks out a concurrent `credentials set` under the old key while this runs.
  transaction.exec("LOCK TABLE personal_credentials IN SHARE ROW EXCLUSIVE MODE");
  const auto rows = transaction.exec(
      "SELECT user_name, credential_id, ciphertext, nonce, master_key_id FROM personal_credentials "
      "ORDER BY user_name, credential_id");
  RotationReport report;
  for (const auto& row : rows) {
    const std::string user = row[0].as<std::string>();
    const std::string credential_id = row[1].as<std::string>();
    Sealed sealed;
    sealed.ciphertext = sql::bytes(row[2]);
    sealed.nonce = sql::bytes(row[3]);
    sealed.key_id = row[4].as<std::string>();
    if (sealed.key_id == vault.keyId()) {
      ++report.already_current;
      continue;
    }
    const std::string associated = credentialAssociatedData(user, credential_id);
    auto plaintext = vault.open(sealed, associated);
    if (!plaintext) {
      return std::unexpected("cannot re-encrypt " + user + "/" + credential_id + ": " + plaintext.error() +
                             "; nothing was changed");
    }
    const Sealed resealed = vault.seal(*plaintext, associated);
    OPENSSL_cleanse(plaintext->data(), plaintext->size());
    transaction.exec_params("UPDATE personal_credentials SET ciphertext = $3, nonce = $4, master_key_id = $5, "
                            "updated_at = " + sql::timestampParam(6) + " WHERE user_name = $1 AND credential_id = $2",
                            user, credential_id, binary(resealed.ciphertext), binary(resealed.nonce), resealed.key_id,
                            sql::micros(now));
    ++report.rotated;
  }
  transaction.commit();
  return report;
}

}  // namespace sluice::identity
