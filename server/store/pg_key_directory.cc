#include "server/store/pg_key_directory.h"

#include "server/store/identity_rows.h"

namespace sluice::store {

PgKeyDirectory::PgKeyDirectory(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::optional<KeyMemberRow> PgKeyDirectory::findKeyForUse(std::string_view hash, TimePoint now,
                                                          std::chrono::seconds touch_interval) {
  return pool_->run([&](pqxx::connection& connection) {
    auto found = findKeyRowByHash(connection, hash);
    // Refreshed on a cache miss at most once per interval, so it costs nothing on the hot path.
    if (found && !found->key.revoked_at) touchKeyRow(connection, found->key.id, now, touch_interval);
    return found;
  });
}

std::optional<KeyMemberRow> PgKeyDirectory::findKeyById(std::string_view id) {
  return pool_->run([&](pqxx::connection& connection) { return findKeyRowById(connection, id); });
}

std::vector<SubjectRow> PgKeyDirectory::findMembersBySubjects(const std::vector<std::string>& subjects) {
  return pool_->run([&](pqxx::connection& connection) { return findSubjectRows(connection, subjects); });
}

std::optional<MemberRow> PgKeyDirectory::findMember(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) { return findMemberRow(connection, name); });
}

std::vector<SealedRow> PgKeyDirectory::sealedCredentials(std::string_view user) {
  return pool_->run([&](pqxx::connection& connection) { return sealedCredentialRows(connection, user); });
}

}  // namespace sluice::store
