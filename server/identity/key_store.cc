#include "server/identity/key_store.h"

#include <algorithm>

#include "server/identity/member_store.h"
#include "server/store/identity_rows.h"
#include "server/store/sql_values.h"

namespace sluice::identity {

namespace sql = store::sql;
using store::keyColumns;

namespace {

ApiKeyInfo keyOf(const pqxx::row& row) { return ApiKeyInfo{store::keyRowOf(row)}; }

bool isBase62(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

}  // namespace

std::string_view ApiKeyInfo::status(TimePoint now) const {
  if (revoked_at) return "revoked";
  if (expires_at && *expires_at <= now) return "expired";
  return "active";
}

std::expected<CreatedApiKey, KeyError> createApiKey(pqxx::connection& connection, const NewApiKey& request,
                                                    TimePoint now) {
  if (request.expires_at && *request.expires_at <= now) {
    return std::unexpected(KeyError{KeyErrorKind::Invalid, "the expiry must be in the future"});
  }
  const auto member = findMember(connection, request.user);
  if (!member) {
    return std::unexpected(KeyError{KeyErrorKind::NoSuchMember, "no member named '" + request.user +
                                                                    "' (add one with `sluicectl users add`)"});
  }
  if (member->disabled()) {
    return std::unexpected(KeyError{KeyErrorKind::MemberDisabled, "member '" + request.user + "' is disabled"});
  }
  if (request.project &&
      std::find(member->projects.begin(), member->projects.end(), *request.project) == member->projects.end()) {
    return std::unexpected(KeyError{KeyErrorKind::NotInProject, "'" + request.user + "' is not a member of project '" +
                                                                    *request.project + "'"});
  }
  for (int attempt = 0;; ++attempt) {
    GeneratedKey generated = generateApiKey();
    pqxx::work transaction(connection);
    const auto rows = transaction.exec_params(
        "INSERT INTO api_keys AS k (id, user_name, project, name, hash, created_at, expires_at) "
        "VALUES ($1, $2, $3, $4, $5, " +
            sql::timestampParam(6) + ", CASE WHEN $7::bigint IS NULL THEN NULL ELSE " + sql::timestampParam(7) +
            " END) ON CONFLICT DO NOTHING RETURNING " + keyColumns(),
        generated.id, request.user, request.project, request.name,
        pqxx::binarystring(generated.hash.data(), generated.hash.size()), sql::micros(now),
        request.expires_at ? std::optional<int64_t>(sql::micros(*request.expires_at)) : std::nullopt);
    if (rows.empty()) {
      // NOTE: an id collision (about one in 10^14 per pair of keys); a hash collision cannot happen.
      if (attempt < 5) continue;
      throw std::runtime_error("could not find an unused key id");
    }
    transaction.commit();
    CreatedApiKey created;
    created.info = keyOf(rows[0]);
    created.key = std::move(generated.key);
    return created;
  }
}

std::vector<ApiKeyInfo> listApiKeys(pqxx::connection& connection, const std::optional<std::string>& user) {
  pqxx::read_transaction transaction(connection);
  const auto rows = transaction.exec_params("SELECT " + keyColumns() +
                                                " FROM api_keys k WHERE $1::text IS NULL OR k.user_name = $1 "
                                                "ORDER BY k.created_at DESC, k.id",
                                            user);
  std::vector<ApiKeyInfo> keys;
  for (const auto& row : rows) keys.push_back(keyOf(row));
  return keys;
}

std::optional<std::string> keyIdFrom(std::string_view text) {
  if (text.starts_with(kKeyPrefix)) text.remove_prefix(kKeyPrefix.size());
  if (text.size() != kKeyIdLength && text.size() != kKeyIdLength + kKeySecretLength) return std::nullopt;
  text = text.substr(0, kKeyIdLength);
  if (!std::all_of(text.begin(), text.end(), isBase62)) return std::nullopt;
  return std::string(text);
}

RevokeResult revokeApiKey(pqxx::connection& connection, std::string_view id, TimePoint now, ApiKeyInfo* info) {
  pqxx::work transaction(connection);
  const auto changed = transaction.exec_params(
      "UPDATE api_keys SET revoked_at = " + sql::timestampParam(2) + " WHERE id = $1 AND revoked_at IS NULL RETURNING 1",
      std::string(id), sql::micros(now));
  const auto rows = transaction.exec_params("SELECT " + keyColumns() + " FROM api_keys k WHERE k.id = $1", std::string(id));
  transaction.commit();
  if (rows.empty()) return RevokeResult::NoSuchKey;
  if (info) *info = keyOf(rows[0]);
  return changed.empty() ? RevokeResult::AlreadyRevoked : RevokeResult::Revoked;
}

KeyRecord keyRecordOf(const store::KeyMemberRow& row) {
  KeyRecord record;
  if (row.hash.size() == record.hash.size()) std::copy(row.hash.begin(), row.hash.end(), record.hash.begin());
  record.key = ApiKeyInfo{row.key};
  record.caller.user = record.key.user;
  record.caller.role = parseRole(row.role).value_or(Role::Member);
  record.caller.groups = row.groups;
  record.caller.projects = row.projects;
  record.caller.primary_project = row.primary_project;
  record.caller.api_key_id = record.key.id;
  record.caller.key_project = record.key.project;
  record.member_disabled_at = row.member_disabled_at;
  return record;
}

std::optional<KeyRecord> verifiedKeyRecord(const std::optional<store::KeyMemberRow>& row, const KeyHash& hash) {
  if (!row || row->hash.size() != hash.size()) return std::nullopt;
  KeyRecord record = keyRecordOf(*row);
  if (!sameHash(record.hash, hash)) return std::nullopt;
  return record;
}

std::string_view hashBytes(const KeyHash& hash) {
  return std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size());
}

std::optional<KeyRecord> findKeyById(pqxx::connection& connection, std::string_view id) {
  auto row = store::findKeyRowById(connection, id);
  if (!row) return std::nullopt;
  return keyRecordOf(*row);
}

std::expected<Caller, KeyRefusal> keyAdmits(const std::optional<KeyRecord>& record, TimePoint now) {
  if (!record) return std::unexpected(KeyRefusal::Unknown);
  if (record->key.revoked_at) return std::unexpected(KeyRefusal::Revoked);
  if (record->key.expires_at && *record->key.expires_at <= now) return std::unexpected(KeyRefusal::Expired);
  if (record->member_disabled_at) return std::unexpected(KeyRefusal::MemberDisabled);
  return record->caller;
}

}  // namespace sluice::identity
