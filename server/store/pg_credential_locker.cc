#include "server/store/pg_credential_locker.h"

#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

pqxx::binarystring binary(const std::string& bytes) { return pqxx::binarystring(bytes.data(), bytes.size()); }

}  // namespace

PgCredentialLocker::PgCredentialLocker(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

SealedChange PgCredentialLocker::upsertSealed(std::string_view user, const SealedRow& sealed, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    if (transaction.exec_params("SELECT 1 FROM members WHERE name = $1", std::string(user)).empty()) {
      return SealedChange::NoSuchMember;
    }
    const auto row = transaction.exec_params1(
        "INSERT INTO personal_credentials AS c (user_name, credential_id, ciphertext, nonce, master_key_id, updated_at) "
        "VALUES ($1, $2, $3, $4, $5, " +
            sql::timestampParam(6) +
            ") ON CONFLICT (user_name, credential_id) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, "
            "nonce = EXCLUDED.nonce, master_key_id = EXCLUDED.master_key_id, updated_at = EXCLUDED.updated_at "
            "RETURNING (xmax = 0)",
        std::string(user), sealed.credential_id, binary(sealed.ciphertext), binary(sealed.nonce), sealed.key_id,
        sql::micros(now));
    transaction.commit();
    // xmax = 0 on the returned row means it was inserted, not updated.
    return row[0].as<bool>() ? SealedChange::Created : SealedChange::Replaced;
  });
}

std::vector<CredentialListing> PgCredentialLocker::listSealed(const std::optional<std::string>& user) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params(
        "SELECT user_name, credential_id, master_key_id, " + sql::microsOf("updated_at") +
            " FROM personal_credentials WHERE $1::text IS NULL OR user_name = $1 ORDER BY user_name, credential_id",
        user);
    std::vector<CredentialListing> out;
    for (const auto& row : rows) {
      out.push_back(CredentialListing{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>(),
                                      sql::timeOf(row[3])});
    }
    return out;
  });
}

std::expected<size_t, std::string> PgCredentialLocker::resealAll(const Resealer& reseal, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<size_t, std::string> {
    pqxx::work transaction(connection);
    // Locks out a concurrent `credentials set` under the old key while this runs.
    transaction.exec("LOCK TABLE personal_credentials IN SHARE ROW EXCLUSIVE MODE");
    const auto rows = transaction.exec(
        "SELECT user_name, credential_id, ciphertext, nonce, master_key_id FROM personal_credentials "
        "ORDER BY user_name, credential_id");
    size_t resealed = 0;
    for (const auto& row : rows) {
      const std::string user = row[0].as<std::string>();
      const SealedRow stored{row[1].as<std::string>(), sql::bytes(row[2]), sql::bytes(row[3]), row[4].as<std::string>()};
      auto changed = reseal(user, stored);
      if (!changed) return std::unexpected(changed.error());  // rolled back: nothing committed
      if (!*changed) continue;
      transaction.exec_params("UPDATE personal_credentials SET ciphertext = $3, nonce = $4, master_key_id = $5, "
                              "updated_at = " + sql::timestampParam(6) + " WHERE user_name = $1 AND credential_id = $2",
                              user, stored.credential_id, binary((*changed)->ciphertext), binary((*changed)->nonce),
                              (*changed)->key_id, sql::micros(now));
      ++resealed;
    }
    transaction.commit();
    return resealed;
  });
}

}  // namespace sluice::store
