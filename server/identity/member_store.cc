#include "server/identity/member_store.h"

#include <algorithm>

#include "server/store/identity_rows.h"
#include "server/store/sql_values.h"

namespace sluice::identity {

namespace sql = store::sql;

namespace {

// Normalised subjects, duplicates dropped; the first unusable one is the error.
std::expected<std::vector<std::string>, std::string> storedSubjects(const std::vector<std::string>& written) {
  std::vector<std::string> out;
  for (const std::string& text : written) {
    auto subject = parseCertSubject(text);
    if (!subject) return std::unexpected(subject.error());
    if (std::find(out.begin(), out.end(), *subject) == out.end()) out.push_back(std::move(*subject));
  }
  return out;
}

// The member `subject` stands for, when it stands for one.
std::optional<std::string> holderOf(pqxx::work& transaction, const std::string& subject) {
  const auto rows = transaction.exec_params("SELECT user_name FROM member_subjects WHERE subject = $1", subject);
  if (rows.empty()) return std::nullopt;
  return rows[0][0].as<std::string>();
}

std::vector<std::string> unique(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (auto& name : names) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

Member memberOf(const store::MemberRow& row) {
  Member member;
  member.name = row.name;
  member.role = parseRole(row.role).value_or(Role::Member);
  member.groups = row.groups;
  member.projects = row.projects;
  member.primary_project = row.primary_project;
  member.disabled_at = row.disabled_at;
  member.created_at = row.created_at;
  member.cert_subjects = row.cert_subjects;
  return member;
}

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
  for (const auto& subject : member.cert_subjects) {
    if (auto parsed = parseCertSubject(subject); !parsed) return parsed.error();
  }
  return std::nullopt;
}

std::expected<Member, MemberError> addMember(pqxx::connection& connection, const NewMember& input, TimePoint now) {
  NewMember member = input;
  member.groups = unique(std::move(member.groups));
  member.projects = unique(std::move(member.projects));
  if (auto problem = validateMember(member)) return std::unexpected(MemberError{MemberErrorKind::Invalid, *problem});
  auto subjects = storedSubjects(member.cert_subjects);
  if (!subjects) return std::unexpected(MemberError{MemberErrorKind::Invalid, subjects.error()});
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
  for (const std::string& subject : *subjects) {
    if (auto holder = holderOf(transaction, subject)) {
      return std::unexpected(MemberError{MemberErrorKind::SubjectTaken, "certificate subject '" + subject +
                                                                            "' already stands for member " + *holder});
    }
    transaction.exec_params("INSERT INTO member_subjects (subject, user_name, created_at) VALUES ($1, $2, " +
                                sql::timestampParam(3) + ")",
                            subject, member.name, sql::micros(now));
  }
  const auto row = transaction.exec_params1(store::selectMembers() + "WHERE name = $1", member.name);
  transaction.commit();
  return memberOf(store::memberRowOf(row));
}

std::vector<Member> listMembers(pqxx::connection& connection) {
  pqxx::read_transaction transaction(connection);
  std::vector<Member> members;
  for (const auto& row : transaction.exec(store::selectMembers() + "ORDER BY name")) {
    members.push_back(memberOf(store::memberRowOf(row)));
  }
  return members;
}

std::optional<Member> findMember(pqxx::connection& connection, std::string_view name) {
  auto row = store::findMemberRow(connection, name);
  if (!row) return std::nullopt;
  return memberOf(*row);
}

std::expected<std::string, MemberError> addCertSubject(pqxx::connection& connection, std::string_view name,
                                                       std::string_view text, TimePoint now) {
  auto subject = parseCertSubject(text);
  if (!subject) return std::unexpected(MemberError{MemberErrorKind::Invalid, subject.error()});
  pqxx::work transaction(connection);
  if (transaction.exec_params("SELECT 1 FROM members WHERE name = $1", std::string(name)).empty()) {
    return std::unexpected(MemberError{MemberErrorKind::NoSuchMember, "no member named '" + std::string(name) + "'"});
  }
  if (auto holder = holderOf(transaction, *subject)) {
    if (*holder == name) return *subject;
    return std::unexpected(MemberError{MemberErrorKind::SubjectTaken,
                                       "certificate subject '" + *subject + "' already stands for member " + *holder});
  }
  transaction.exec_params("INSERT INTO member_subjects (subject, user_name, created_at) VALUES ($1, $2, " +
                              sql::timestampParam(3) + ")",
                          *subject, std::string(name), sql::micros(now));
  transaction.commit();
  return *subject;
}

bool removeCertSubject(pqxx::connection& connection, std::string_view name, std::string_view text) {
  auto subject = parseCertSubject(text);
  if (!subject) return false;
  pqxx::work transaction(connection);
  const auto removed = transaction.exec_params(
      "DELETE FROM member_subjects WHERE subject = $1 AND user_name = $2 RETURNING 1", *subject, std::string(name));
  transaction.commit();
  return !removed.empty();
}

std::vector<SubjectMatch> subjectMatchesOf(const std::vector<store::SubjectRow>& rows) {
  std::vector<SubjectMatch> matches;
  for (const store::SubjectRow& row : rows) matches.push_back(SubjectMatch{row.subject, memberOf(row.member)});
  return matches;
}

std::vector<SubjectMatch> findMembersBySubjects(pqxx::connection& connection,
                                                const std::vector<std::string>& subjects) {
  return subjectMatchesOf(store::findSubjectRows(connection, subjects));
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
