#include "server/store/pg_key_registry.h"

#include "server/store/identity_rows.h"
#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

std::optional<int64_t> optionalMicros(const std::optional<TimePoint>& time) {
  return time ? std::optional<int64_t>(sql::micros(*time)) : std::nullopt;
}

}  // namespace

PgKeyRegistry::PgKeyRegistry(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::optional<KeyRow> PgKeyRegistry::insertKey(const KeyRow& key, std::string_view hash) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<KeyRow> {
    pqxx::work transaction(connection);
    // ON CONFLICT without a target: a taken id and a taken hash both leave nothing stored.
    const auto rows = transaction.exec_params(
        "INSERT INTO api_keys AS k (id, user_name, project, name, hash, created_at, expires_at) "
        "VALUES ($1, $2, $3, $4, $5, " +
            sql::timestampParam(6) + ", CASE WHEN $7::bigint IS NULL THEN NULL ELSE " + sql::timestampParam(7) +
            " END) ON CONFLICT DO NOTHING RETURNING " + keyColumns(),
        key.id, key.user, key.project, key.name, pqxx::binarystring(hash.data(), hash.size()),
        sql::micros(key.created_at), optionalMicros(key.expires_at));
    if (rows.empty()) return std::nullopt;
    transaction.commit();
    return keyRowOf(rows[0]);
  });
}

std::vector<KeyRow> PgKeyRegistry::listKeys(const std::optional<std::string>& user) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params("SELECT " + keyColumns() +
                                                  " FROM api_keys k WHERE $1::text IS NULL OR k.user_name = $1 "
                                                  "ORDER BY k.created_at DESC, k.id",
                                              user);
    std::vector<KeyRow> keys;
    for (const auto& row : rows) keys.push_back(keyRowOf(row));
    return keys;
  });
}

std::optional<RevokedKey> PgKeyRegistry::setRevoked(std::string_view id, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<RevokedKey> {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params("UPDATE api_keys SET revoked_at = " + sql::timestampParam(2) +
                                                     " WHERE id = $1 AND revoked_at IS NULL RETURNING 1",
                                                 std::string(id), sql::micros(now));
    const auto rows =
        transaction.exec_params("SELECT " + keyColumns() + " FROM api_keys k WHERE k.id = $1", std::string(id));
    transaction.commit();
    if (rows.empty()) return std::nullopt;
    return RevokedKey{keyRowOf(rows[0]), !changed.empty()};
  });
}

}  // namespace sluice::store
