#include "server/store/pg_member_roster.h"

#include "server/store/identity_rows.h"
#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

// The member `subject` stands for, when it stands for one.
std::optional<std::string> holderOf(pqxx::work& transaction, std::string_view subject) {
  const auto rows = transaction.exec_params("SELECT user_name FROM member_subjects WHERE subject = $1", std::string(subject));
  if (rows.empty()) return std::nullopt;
  return rows[0][0].as<std::string>();
}

void insertSubjectRow(pqxx::work& transaction, std::string_view name, std::string_view subject, TimePoint now) {
  transaction.exec_params("INSERT INTO member_subjects (subject, user_name, created_at) VALUES ($1, $2, " +
                              sql::timestampParam(3) + ")",
                          std::string(subject), std::string(name), sql::micros(now));
}

bool memberExists(pqxx::work& transaction, std::string_view name) {
  return !transaction.exec_params("SELECT 1 FROM members WHERE name = $1", std::string(name)).empty();
}

}  // namespace

PgMemberRoster::PgMemberRoster(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::expected<MemberRow, RosterConflict> PgMemberRoster::insertMember(const MemberRow& member) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<MemberRow, RosterConflict> {
    pqxx::work transaction(connection);
    const auto inserted = transaction.exec_params(
        "INSERT INTO members (name, role, groups, projects, primary_project, created_at, source, scim_id, "
        "external_id, display_name, email) "
        "VALUES ($1, $2, ARRAY(SELECT json_array_elements_text($3::json)), "
        "ARRAY(SELECT json_array_elements_text($4::json)), $5, " +
            sql::timestampParam(6) + ", $7, $8, $9, $10, $11) ON CONFLICT (name) DO NOTHING RETURNING name",
        member.name, member.role, sql::jsonArray(member.groups), sql::jsonArray(member.projects),
        member.primary_project, sql::micros(member.created_at), member.source, member.scim_id, member.external_id,
        member.display_name, member.email);
    if (inserted.empty()) return std::unexpected(RosterConflict{RosterConflict::Kind::NameTaken, {}, {}});
    for (const std::string& subject : member.cert_subjects) {
      // Leaving without commit() rolls the member back too.
      if (auto holder = holderOf(transaction, subject)) {
        return std::unexpected(RosterConflict{RosterConflict::Kind::SubjectTaken, subject, *holder});
      }
      insertSubjectRow(transaction, member.name, subject, member.created_at);
    }
    const auto row = transaction.exec_params1(selectMembers() + "WHERE name = $1", member.name);
    transaction.commit();
    return memberRowOf(row);
  });
}

std::vector<MemberRow> PgMemberRoster::listMembers() {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction transaction(connection);
    std::vector<MemberRow> members;
    for (const auto& row : transaction.exec(selectMembers() + "ORDER BY name")) members.push_back(memberRowOf(row));
    return members;
  });
}

std::optional<MemberRow> PgMemberRoster::findMember(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) { return findMemberRow(connection, name); });
}

std::expected<bool, RosterConflict> PgMemberRoster::insertSubject(std::string_view name, std::string_view subject,
                                                                  TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<bool, RosterConflict> {
    pqxx::work transaction(connection);
    if (!memberExists(transaction, name)) {
      return std::unexpected(RosterConflict{RosterConflict::Kind::NoSuchMember, {}, {}});
    }
    if (auto holder = holderOf(transaction, subject)) {
      if (*holder == name) return false;
      return std::unexpected(RosterConflict{RosterConflict::Kind::SubjectTaken, std::string(subject), *holder});
    }
    insertSubjectRow(transaction, name, subject, now);
    transaction.commit();
    return true;
  });
}

bool PgMemberRoster::deleteSubject(std::string_view name, std::string_view subject) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto removed = transaction.exec_params(
        "DELETE FROM member_subjects WHERE subject = $1 AND user_name = $2 RETURNING 1", std::string(subject),
        std::string(name));
    transaction.commit();
    return !removed.empty();
  });
}

DisableChange PgMemberRoster::setDisabled(std::string_view name, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params("UPDATE members SET disabled_at = " + sql::timestampParam(2) +
                                                     " WHERE name = $1 AND disabled_at IS NULL RETURNING 1",
                                                 std::string(name), sql::micros(now));
    const bool exists = !changed.empty() || memberExists(transaction, name);
    transaction.commit();
    if (!exists) return DisableChange::NoSuchMember;
    return changed.empty() ? DisableChange::AlreadyDisabled : DisableChange::Disabled;
  });
}

EnableChange PgMemberRoster::clearDisabled(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE members SET disabled_at = NULL WHERE name = $1 AND disabled_at IS NOT NULL RETURNING 1",
        std::string(name));
    const bool exists = !changed.empty() || memberExists(transaction, name);
    transaction.commit();
    if (!exists) return EnableChange::NoSuchMember;
    return changed.empty() ? EnableChange::AlreadyEnabled : EnableChange::Enabled;
  });
}

std::expected<MemberRow, RosterConflict> PgMemberRoster::updateMember(const MemberRow& changed) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<MemberRow, RosterConflict> {
    pqxx::work transaction(connection);
    const auto updated = transaction.exec_params(
        "UPDATE members SET role = $2, groups = ARRAY(SELECT json_array_elements_text($3::json)), "
        "projects = ARRAY(SELECT json_array_elements_text($4::json)), primary_project = $5 "
        "WHERE name = $1 RETURNING 1",
        changed.name, changed.role, sql::jsonArray(changed.groups), sql::jsonArray(changed.projects),
        changed.primary_project);
    if (updated.empty()) return std::unexpected(RosterConflict{RosterConflict::Kind::NoSuchMember, {}, {}});
    const auto row = transaction.exec_params1(selectMembers() + "WHERE name = $1", changed.name);
    transaction.commit();
    return memberRowOf(row);
  });
}

RemoveChange PgMemberRoster::removeMember(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    // Locks the row: a key created meanwhile waits for this transaction, then fails its foreign key.
    if (transaction.exec_params("SELECT 1 FROM members WHERE name = $1 FOR UPDATE", std::string(name)).empty()) {
      return RemoveChange::NoSuchMember;
    }
    const auto history = transaction.exec_params(
        "SELECT EXISTS (SELECT 1 FROM api_keys WHERE user_name = $1) "
        "OR EXISTS (SELECT 1 FROM ai_requests WHERE user_name = $1)",
        std::string(name));
    if (history[0][0].as<bool>()) return RemoveChange::HasHistory;
    transaction.exec_params("DELETE FROM personal_credentials WHERE user_name = $1", std::string(name));
    transaction.exec_params("DELETE FROM members WHERE name = $1", std::string(name));
    transaction.commit();
    return RemoveChange::Removed;
  });
}

}  // namespace sluice::store
