#pragma once
// The SQL that reads members, keys and sealed credentials, on a caller's connection: shared by
// PgKeyDirectory, PgMemberRoster and PgKeyRegistry. Each function is one statement (or one
// read-only transaction) and throws pqxx errors.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/pqxx>

#include "server/store/key_directory.h"

namespace sluice::store {

// "SELECT <the member columns memberRowOf reads> FROM members " (a WHERE or ORDER BY follows).
std::string selectMembers();
// selectMembers() with `extra_columns` (", given_name, family_name") after the member columns, from
// column kMemberColumns on.
std::string selectMembersWith(std::string_view extra_columns);
inline constexpr int kMemberColumns = 13;
// The member columns of selectMembers(), from column `first` of `row` on.
MemberRow memberRowOf(const pqxx::row& row, int first = 0);

// The key columns keyRowOf reads, of `api_keys k`.
std::string keyColumns();
inline constexpr int kKeyColumns = 9;
KeyRow keyRowOf(const pqxx::row& row);

std::optional<MemberRow> findMemberRow(pqxx::connection& connection, std::string_view name);
// KeyDirectory::findMembersBySubjects on `connection`.
std::vector<SubjectRow> findSubjectRows(pqxx::connection& connection, const std::vector<std::string>& subjects);
// The key whose stored hash equals `hash` (raw bytes), or with id `id`, with its member.
std::optional<KeyMemberRow> findKeyRowByHash(pqxx::connection& connection, std::string_view hash);
std::optional<KeyMemberRow> findKeyRowById(pqxx::connection& connection, std::string_view id);
// Sets last_used_at = now unless it was set within `interval`.
void touchKeyRow(pqxx::connection& connection, std::string_view id, TimePoint now, std::chrono::seconds interval);
std::vector<SealedRow> sealedCredentialRows(pqxx::connection& connection, std::string_view user);

}  // namespace sluice::store
