#include "server/store/identity_rows.h"

#include <algorithm>

#include "server/store/sql_values.h"

namespace sluice::store {

std::string selectMembers() { return selectMembersWith(""); }

std::string selectMembersWith(std::string_view extra_columns) {
  return "SELECT name, role, array_to_json(groups), array_to_json(projects), primary_project, " +
         sql::microsOf("disabled_at") + ", " + sql::microsOf("created_at") +
         ", (SELECT coalesce(json_agg(s.subject ORDER BY s.subject), '[]'::json) FROM member_subjects s "
         "WHERE s.user_name = members.name), source, scim_id, external_id, display_name, email" +
         std::string(extra_columns) + " FROM members ";
}

MemberRow memberRowOf(const pqxx::row& row, int first) {
  MemberRow member;
  member.name = row[first].as<std::string>();
  member.role = row[first + 1].as<std::string>();
  member.groups = sql::textArray(row[first + 2]);
  member.projects = sql::textArray(row[first + 3]);
  member.primary_project = sql::optionalText(row[first + 4]);
  member.disabled_at = sql::optionalTime(row[first + 5]);
  member.created_at = sql::timeOf(row[first + 6]);
  member.cert_subjects = sql::textArray(row[first + 7]);
  member.source = row[first + 8].as<std::string>();
  member.scim_id = sql::optionalText(row[first + 9]);
  member.external_id = sql::optionalText(row[first + 10]);
  member.display_name = sql::optionalText(row[first + 11]);
  member.email = sql::optionalText(row[first + 12]);
  return member;
}

std::string keyColumns() {
  return "k.id, k.prefix, k.user_name, k.project, k.name, " + sql::microsOf("k.created_at") + ", " +
         sql::microsOf("k.expires_at") + ", " + sql::microsOf("k.revoked_at") + ", " + sql::microsOf("k.last_used_at");
}

KeyRow keyRowOf(const pqxx::row& row) {
  KeyRow key;
  key.id = row[0].as<std::string>();
  key.prefix = row[1].as<std::string>();
  key.user = row[2].as<std::string>();
  key.project = sql::optionalText(row[3]);
  key.name = sql::optionalText(row[4]);
  key.created_at = sql::timeOf(row[5]);
  key.expires_at = sql::optionalTime(row[6]);
  key.revoked_at = sql::optionalTime(row[7]);
  key.last_used_at = sql::optionalTime(row[8]);
  return key;
}

std::optional<MemberRow> findMemberRow(pqxx::connection& connection, std::string_view name) {
  pqxx::read_transaction transaction(connection);
  const auto rows = transaction.exec_params(selectMembers() + "WHERE name = $1", std::string(name));
  if (rows.empty()) return std::nullopt;
  return memberRowOf(rows[0]);
}

std::vector<SubjectRow> findSubjectRows(pqxx::connection& connection, const std::vector<std::string>& subjects) {
  std::vector<SubjectRow> matches;
  if (subjects.empty()) return matches;
  pqxx::read_transaction transaction(connection);
  const auto rows = transaction.exec_params(
      "SELECT s.subject, m.* FROM member_subjects s JOIN LATERAL (" + selectMembers() +
          "WHERE name = s.user_name) m ON true WHERE s.subject IN (SELECT json_array_elements_text($1::json))",
      sql::jsonArray(subjects));
  for (const auto& row : rows) {
    SubjectRow match;
    match.subject = row[0].as<std::string>();
    match.member = memberRowOf(row, 1);
    matches.push_back(std::move(match));
  }
  std::stable_sort(matches.begin(), matches.end(), [&](const SubjectRow& a, const SubjectRow& b) {
    return std::find(subjects.begin(), subjects.end(), a.subject) < std::find(subjects.begin(), subjects.end(), b.subject);
  });
  return matches;
}

namespace {

// `row`: keyColumns() then hash, role, groups, projects, primary project and the member's
// disabled_at, as keyAndMemberQuery() selects them.
KeyMemberRow keyMemberRowOf(const pqxx::row& row) {
  KeyMemberRow record;
  record.key = keyRowOf(row);
  record.hash = sql::bytes(row[kKeyColumns]);
  record.role = row[kKeyColumns + 1].as<std::string>();
  record.groups = sql::textArray(row[kKeyColumns + 2]);
  record.projects = sql::textArray(row[kKeyColumns + 3]);
  record.primary_project = sql::optionalText(row[kKeyColumns + 4]);
  record.member_disabled_at = sql::optionalTime(row[kKeyColumns + 5]);
  return record;
}

std::string keyAndMemberQuery(std::string_view where) {
  return "SELECT " + keyColumns() + ", k.hash, m.role, array_to_json(m.groups), array_to_json(m.projects), "
         "m.primary_project, " + sql::microsOf("m.disabled_at") +
         " FROM api_keys k JOIN members m ON m.name = k.user_name WHERE " + std::string(where);
}

}  // namespace

std::optional<KeyMemberRow> findKeyRowByHash(pqxx::connection& connection, std::string_view hash) {
  pqxx::nontransaction query(connection);
  const auto rows = query.exec_params(keyAndMemberQuery("k.hash = $1"), pqxx::binarystring(hash.data(), hash.size()));
  if (rows.empty()) return std::nullopt;
  return keyMemberRowOf(rows[0]);
}

std::optional<KeyMemberRow> findKeyRowById(pqxx::connection& connection, std::string_view id) {
  pqxx::nontransaction query(connection);
  const auto rows = query.exec_params(keyAndMemberQuery("k.id = $1"), std::string(id));
  if (rows.empty()) return std::nullopt;
  return keyMemberRowOf(rows[0]);
}

void touchKeyRow(pqxx::connection& connection, std::string_view id, TimePoint now, std::chrono::seconds interval) {
  pqxx::nontransaction query(connection);
  query.exec_params("UPDATE api_keys SET last_used_at = " + sql::timestampParam(2) +
                        " WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < " + sql::timestampParam(2) +
                        " - $3::bigint * interval '1 second')",
                    std::string(id), sql::micros(now), static_cast<int64_t>(interval.count()));
}

std::vector<SealedRow> sealedCredentialRows(pqxx::connection& connection, std::string_view user) {
  pqxx::nontransaction query(connection);
  const auto rows = query.exec_params(
      "SELECT credential_id, ciphertext, nonce, master_key_id FROM personal_credentials WHERE user_name = $1",
      std::string(user));
  std::vector<SealedRow> out;
  for (const auto& row : rows) {
    SealedRow stored;
    stored.credential_id = row[0].as<std::string>();
    stored.ciphertext = sql::bytes(row[1]);
    stored.nonce = sql::bytes(row[2]);
    stored.key_id = row[3].as<std::string>();
    out.push_back(std::move(stored));
  }
  return out;
}

}  // namespace sluice::store
