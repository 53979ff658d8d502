#include "server/identity/member_store.h"

#include <algorithm>

#include "server/identity/sql_values.h"

namespace sluice::identity {

namespace {

std::string selectMembers() {
  return "SELECT name, role, array_to_json(groups), array_to_json(projects), primary_project, " +
         sql::microsOf("disabled_at") + ", " + sql::microsOf("created_at") + " FROM members ";
}

Member memberOf(const pqxx::row& row) {
  Member member;
  member.name = row[0].as<std::string>();
  member.role = parseRole(row[1].as<std::string>()).value_or(Role::Member);
  member.groups = sql::textArray(row[2]);
  member.projects = sql::textArray(row[3]);
  member.primary_project = sql::optionalText(row[4]);
  member.disabled_at = sql::optionalTime(row[5]);
  member.created_at = sql::timeOf(row[6]);
  return member;
}

std::vector<std::string> unique(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (auto& name : names) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

bool validName(std::string_view name) {
  const auto alnum = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (name.empty() || name.size() > 128 || !alnum(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return alnum(c) || c == '.' || c == '_' || c == '@' || c == '+' || c == '-';
  });
}

std::optional<std::string> validateMember(const NewMember& member) {
  const std::string rule = ": use a letter or digit, then letters, digits and . _ @ + - (at most 128)";
  if (!validName(member.name)) return "invalid member name '" + member.name + "'" + rule;
  for (const auto& group : member.groups) {
    if (!validName(group)) return "invalid group name '" + group + "'" + rule;
  }
  for (const auto& project : member.projects) {
    if (!validName(project)) return "invalid project name '" + project + "'" + rule;
  }
  if (member.primary_project &&
      std::find(member.projects.begin(), member.projects.end(), *member.primary_project) == member.projects.end()) {
    return "primary project '" + *member.primary_project + "' is not one of the member's projects (add --project " +
           *member.primary_project + ")";
  }
  return std::nullopt;
}

std::expected<Member, MemberError> addMember(pqxx::connection& connection, const NewMember& input, TimePoint now) {
  NewMember member = input;
  member.groups = unique(std::move(member.groups));
  member.projects = unique(std::move(member.projects));
  if (auto problem = validateMember(member)) return std::unexpected(MemberError{MemberErrorKind::Invalid, *problem});
  pqxx::work transaction(connection);
  const auto inserted = transaction.exec_params(
      "INSERT INTO members (name, role, groups, projects, primary_project, created_at) "
      "VALUES ($1, $2, ARRAY(SELECT json_array_elements_text($3::json)), "
      "ARRAY(SELECT json_array_elements_text($4::json)), $5, " +
          sql::timestampParam(6) + ") ON CONFLICT (name) DO NOTHING RETURNING name",
      member.name, std::string(toString(member.role)), sql::jsonArray(member.groups), sql::jsonArray(member.projects),
      member.primary_project, sql::micros(now));
  if (inserted.empty()) {
    return std::unexpected(MemberError{MemberErrorKind::AlreadyExists, "member '" + member.name + "' already exists"});
  }
  const auto row = transaction.exec_params1(selectMembers() + "WHERE name = $1", member.name);
  transaction.commit();
  return memberOf(row);
}

std::vector<Member> listMembers(pqxx::connection& connection) {
  pqxx::read_transaction transaction(connection);
  std::vector<Member> members;
  for (const auto& row : transaction.exec(selectMembers() + "ORDER BY name")) members.push_back(memberOf(row));
  return members;
}

std::optional<Member> findMember(pqxx::connection& connection, std::string_view name) {
  pqxx::read_transaction transaction(connection);
  const auto rows = transaction.exec_params(selectMembers() + "WHERE name = $1", std::string(name));
  if (rows.empty()) return std::nullopt;
  return memberOf(rows[0]);
}

DisableResult disableMember(pqxx::connection& connection, std::string_view name, TimePoint now) {
  pqxx::work transaction(connection);
  const auto changed = transaction.exec_params(
      "UPDATE members SET disabled_at = " + sql::timestampParam(2) + " WHERE name = $1 AND disabled_at IS NULL RETURNING 1",
      std::string(name), sql::micros(now));
  const bool exists = !changed.empty() || !transaction.exec_params("SELECT 1 FROM members WHERE name = $1", std::string(name)).empty();
  transaction.commit();
  if (!exists) return DisableResult::NoSuchMember;
  return changed.empty() ? DisableResult::AlreadyDisabled : DisableResult::Disabled;
}

}  // namespace sluice::identity
