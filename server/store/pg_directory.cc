#include "server/store/pg_directory.h"

#include "server/store/identity_rows.h"
#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

const std::string kUserColumns = ", given_name, family_name";

DirectoryUser userOf(const pqxx::row& row) {
  DirectoryUser user;
  user.member = memberRowOf(row);
  user.given_name = sql::optionalText(row[kMemberColumns]);
  user.family_name = sql::optionalText(row[kMemberColumns + 1]);
  return user;
}

std::string selectUsers() { return selectMembersWith(kUserColumns); }

// Members no SCIM client or sign-in saw yet get their id now (gen_random_uuid: PostgreSQL 13+).
void assignScimIds(pqxx::work& transaction, std::string_view where) {
  transaction.exec("UPDATE members SET scim_id = gen_random_uuid()::text WHERE scim_id IS NULL" +
                   std::string(where.empty() ? "" : " AND ") + std::string(where));
}

std::string groupColumns() {
  return "id, display_name, external_id, " + sql::microsOf("created_at") + ", " + sql::microsOf("updated_at");
}

GroupRow groupOf(const pqxx::row& row) {
  return GroupRow{row[0].as<std::string>(), row[1].as<std::string>(), sql::optionalText(row[2]), sql::timeOf(row[3]),
                  sql::timeOf(row[4])};
}

// The WHERE of a user match, with its value as $1.
std::string userWhere(UserMatch::Field field) {
  switch (field) {
    case UserMatch::Field::All: return "($1::text IS NULL OR true)";
    case UserMatch::Field::Id: return "scim_id = $1";
    case UserMatch::Field::UserName: return "lower(name) = lower($1)";
    case UserMatch::Field::ExternalId: return "external_id = $1";
    case UserMatch::Field::Email: return "lower(email) = lower($1)";
    case UserMatch::Field::DisplayName: return "lower(display_name) = lower($1)";
  }
  return "false";
}

std::string groupWhere(GroupMatch::Field field) {
  switch (field) {
    case GroupMatch::Field::All: return "($1::text IS NULL OR true)";
    case GroupMatch::Field::Id: return "id = $1";
    case GroupMatch::Field::DisplayName: return "display_name = $1";
    case GroupMatch::Field::ExternalId: return "external_id = $1";
  }
  return "false";
}

std::vector<std::string> namesOf(const pqxx::result& rows) {
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row[0].as<std::string>());
  return names;
}

}  // namespace

PgDirectory::PgDirectory(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::optional<DirectoryUser> PgDirectory::findUser(std::string_view id) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<DirectoryUser> {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params(selectUsers() + "WHERE scim_id = $1", std::string(id));
    if (rows.empty()) return std::nullopt;
    return userOf(rows[0]);
  });
}

std::optional<DirectoryUser> PgDirectory::findUserByName(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<DirectoryUser> {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params(selectUsers() + "WHERE name = $1", std::string(name));
    if (rows.empty()) return std::nullopt;
    return userOf(rows[0]);
  });
}

UserPage PgDirectory::findUsers(const UserMatch& match, size_t offset, size_t limit) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    assignScimIds(transaction, "");
    const std::string where = userWhere(match.field);
    const std::optional<std::string> value =
        match.field == UserMatch::Field::All ? std::nullopt : std::optional<std::string>(match.value);
    UserPage page;
    page.total = transaction.exec_params1("SELECT count(*) FROM members WHERE " + where, value)[0].as<size_t>();
    if (limit > 0) {
      const auto rows = transaction.exec_params(selectUsers() + "WHERE " + where + " ORDER BY name OFFSET $2 LIMIT $3",
                                                value, static_cast<int64_t>(offset), static_cast<int64_t>(limit));
      for (const auto& row : rows) page.users.push_back(userOf(row));
    }
    transaction.commit();
    return page;
  });
}

std::expected<DirectoryUser, RosterConflict> PgDirectory::insertUser(const DirectoryUser& user,
                                                                      const UserProfile& profile) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<DirectoryUser, RosterConflict> {
    pqxx::work transaction(connection);
    const MemberRow& member = user.member;
    // As text ($7::bigint reads it): GCC 12 at -O3 takes an optional<int64_t> here for one read
    // uninitialised (-Wmaybe-uninitialized), which stopped the benchmark's Release build.
    const std::optional<std::string> disabled =
        member.disabled_at ? std::optional<std::string>(std::to_string(sql::micros(*member.disabled_at))) : std::nullopt;
    const auto inserted = transaction.exec_params(
        "INSERT INTO members (name, role, groups, projects, primary_project, created_at, disabled_at, source, scim_id, "
        "external_id, display_name, given_name, family_name, email) VALUES ($1, $2, "
        "ARRAY(SELECT json_array_elements_text($3::json)), ARRAY(SELECT json_array_elements_text($4::json)), $5, " +
            sql::timestampParam(6) + ", CASE WHEN $7::bigint IS NULL THEN NULL ELSE " + sql::timestampParam(7) +
            " END, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (name) DO NOTHING RETURNING name",
        member.name, member.role, sql::jsonArray(member.groups), sql::jsonArray(member.projects),
        member.primary_project, sql::micros(member.created_at), disabled, member.source, profile.scim_id,
        profile.external_id, profile.display_name, profile.given_name, profile.family_name, profile.email);
    if (inserted.empty()) return std::unexpected(RosterConflict{RosterConflict::Kind::NameTaken, {}, {}});
    const auto row = transaction.exec_params1(selectUsers() + "WHERE name = $1", member.name);
    transaction.commit();
    return userOf(row);
  });
}

bool PgDirectory::updateProfile(std::string_view name, const UserProfile& profile) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE members SET scim_id = $2, external_id = $3, display_name = $4, given_name = $5, family_name = $6, "
        "email = $7 WHERE name = $1 RETURNING 1",
        std::string(name), profile.scim_id, profile.external_id, profile.display_name, profile.given_name,
        profile.family_name, profile.email);
    transaction.commit();
    return !changed.empty();
  });
}

bool PgDirectory::detachUser(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE members SET scim_id = NULL, external_id = NULL WHERE name = $1 RETURNING 1", std::string(name));
    transaction.commit();
    return !changed.empty();
  });
}

std::optional<GroupRow> PgDirectory::findGroup(std::string_view id) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<GroupRow> {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params("SELECT " + groupColumns() + " FROM directory_groups WHERE id = $1",
                                              std::string(id));
    if (rows.empty()) return std::nullopt;
    return groupOf(rows[0]);
  });
}

std::optional<GroupRow> PgDirectory::findGroupByName(std::string_view display_name) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<GroupRow> {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params(
        "SELECT " + groupColumns() + " FROM directory_groups WHERE display_name = $1", std::string(display_name));
    if (rows.empty()) return std::nullopt;
    return groupOf(rows[0]);
  });
}

GroupPage PgDirectory::findGroups(const GroupMatch& match, size_t offset, size_t limit) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction transaction(connection);
    const std::string where = groupWhere(match.field);
    const std::optional<std::string> value =
        match.field == GroupMatch::Field::All ? std::nullopt : std::optional<std::string>(match.value);
    GroupPage page;
    page.total =
        transaction.exec_params1("SELECT count(*) FROM directory_groups WHERE " + where, value)[0].as<size_t>();
    if (limit > 0) {
      const auto rows = transaction.exec_params("SELECT " + groupColumns() + " FROM directory_groups WHERE " + where +
                                                    " ORDER BY display_name OFFSET $2 LIMIT $3",
                                                value, static_cast<int64_t>(offset), static_cast<int64_t>(limit));
      for (const auto& row : rows) page.groups.push_back(groupOf(row));
    }
    return page;
  });
}

std::expected<GroupRow, GroupConflict> PgDirectory::insertGroup(const GroupRow& group) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<GroupRow, GroupConflict> {
    pqxx::work transaction(connection);
    const auto rows = transaction.exec_params(
        "INSERT INTO directory_groups (id, display_name, external_id, created_at, updated_at) VALUES ($1, $2, $3, " +
            sql::timestampParam(4) + ", " + sql::timestampParam(4) + ") ON CONFLICT DO NOTHING RETURNING " +
            groupColumns(),
        group.id, group.display_name, group.external_id, sql::micros(group.created_at));
    if (rows.empty()) return std::unexpected(GroupConflict::NameTaken);
    transaction.commit();
    return groupOf(rows[0]);
  });
}

std::expected<std::vector<std::string>, GroupConflict> PgDirectory::renameGroup(std::string_view id,
                                                                                 std::string_view name, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) -> std::expected<std::vector<std::string>, GroupConflict> {
    pqxx::work transaction(connection);
    const auto old = transaction.exec_params("SELECT display_name FROM directory_groups WHERE id = $1 FOR UPDATE",
                                             std::string(id));
    if (old.empty()) return std::unexpected(GroupConflict::NoSuchGroup);
    const std::string from = old[0][0].as<std::string>();
    if (from == name) return std::vector<std::string>();
    if (!transaction.exec_params("SELECT 1 FROM directory_groups WHERE display_name = $1", std::string(name)).empty()) {
      return std::unexpected(GroupConflict::NameTaken);
    }
    transaction.exec_params("UPDATE directory_groups SET display_name = $2, updated_at = " + sql::timestampParam(3) +
                                " WHERE id = $1",
                            std::string(id), std::string(name), sql::micros(now));
    // Members already in the new name only lose the old one (no name twice).
    const auto changed = transaction.exec_params(
        "UPDATE members SET groups = CASE WHEN $2 = ANY(groups) THEN array_remove(groups, $1) "
        "ELSE array_replace(groups, $1, $2) END WHERE $1 = ANY(groups) RETURNING name",
        from, std::string(name));
    transaction.commit();
    return namesOf(changed);
  });
}

bool PgDirectory::updateGroup(std::string_view id, const std::optional<std::string>& external_id, TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE directory_groups SET external_id = $2, updated_at = " + sql::timestampParam(3) +
            " WHERE id = $1 RETURNING 1",
        std::string(id), external_id, sql::micros(now));
    transaction.commit();
    return !changed.empty();
  });
}

std::optional<std::vector<std::string>> PgDirectory::deleteGroup(std::string_view id) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<std::vector<std::string>> {
    pqxx::work transaction(connection);
    const auto removed =
        transaction.exec_params("DELETE FROM directory_groups WHERE id = $1 RETURNING display_name", std::string(id));
    if (removed.empty()) return std::nullopt;
    const auto changed = transaction.exec_params(
        "UPDATE members SET groups = array_remove(groups, $1) WHERE $1 = ANY(groups) RETURNING name",
        removed[0][0].as<std::string>());
    transaction.commit();
    return namesOf(changed);
  });
}

std::vector<DirectoryUser> PgDirectory::groupMembers(std::string_view name) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const std::string group(name);
    transaction.exec_params("UPDATE members SET scim_id = gen_random_uuid()::text WHERE scim_id IS NULL AND $1 = ANY(groups)",
                            group);
    std::vector<DirectoryUser> users;
    for (const auto& row : transaction.exec_params(selectUsers() + "WHERE $1 = ANY(groups) ORDER BY name", group)) {
      users.push_back(userOf(row));
    }
    transaction.commit();
    return users;
  });
}

bool PgDirectory::addToGroup(std::string_view name, std::string_view group) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE members SET groups = array_append(groups, $2) WHERE name = $1 AND NOT ($2 = ANY(groups)) RETURNING 1",
        std::string(name), std::string(group));
    transaction.commit();
    return !changed.empty();
  });
}

bool PgDirectory::removeFromGroup(std::string_view name, std::string_view group) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto changed = transaction.exec_params(
        "UPDATE members SET groups = array_remove(groups, $2) WHERE name = $1 AND $2 = ANY(groups) RETURNING 1",
        std::string(name), std::string(group));
    transaction.commit();
    return !changed.empty();
  });
}

}  // namespace sluice::store
