#include "cli/users_commands.h"

#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/admin_stores.h"
#include "cli/database_session.h"
#include "cli/identity_time.h"
#include "cli/table.h"
#include "server/identity/member_store.h"
#include "server/store/pg_member_roster.h"

namespace sluice::cli {

namespace {

std::string joined(const std::vector<std::string>& names, const std::optional<std::string>& marked = std::nullopt) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) text += ",";
    text += name;
    if (marked && name == *marked) text += "*";
  }
  return text.empty() ? "-" : text;
}

// Certificate subjects may hold commas, blanks and quotes ("cn:alice,OU=x" is one subject): each
// is quoted (JSON string rules, so a quote or a control character inside is escaped), so a list
// never reads as more subjects, or other ones, than it holds.
std::string quotedSubjects(const std::vector<std::string>& subjects) {
  std::string text;
  for (const auto& subject : subjects) {
    if (!text.empty()) text += ", ";
    text += nlohmann::json(subject).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return text.empty() ? "-" : text;
}

// Refuses (err, true) a change to a member SCIM provisioned, unless forced.
bool refusedAsProvisioned(store::MemberRoster& roster, const std::string& name, bool force, std::ostream& err) {
  if (force) return false;
  const auto row = roster.findMember(name);
  if (!row || row->source != "scim") return false;
  err << "sluicectl: " << name << " is provisioned by SCIM: change them in the identity provider, which would "
         "set them back at its next sync (add --force to change them here anyway)\n";
  return true;
}

nlohmann::json memberJson(const identity::Member& member, const std::string& source = "cli") {
  return {{"name", member.name},
          {"role", identity::toString(member.role)},
          {"source", source},
          {"groups", member.groups},
          {"projects", member.projects},
          {"primary_project", member.primary_project ? nlohmann::json(*member.primary_project) : nlohmann::json()},
          {"cert_subjects", member.cert_subjects},
          {"disabled_at", jsonTime(member.disabled_at)},
          {"created_at", jsonTime(member.created_at)}};
}

}  // namespace

int usersAdd(const std::string& database_url, const UsersAddOptions& options, bool json,
             std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  const auto role = identity::parseRole(options.role);
  if (!role) {
    err << "sluicectl: --role must be member or admin, got '" << options.role << "'\n";
    return 2;
  }
  identity::NewMember member;
  member.name = options.name;
  member.role = *role;
  member.groups = options.groups;
  member.projects = options.projects;
  member.primary_project = options.primary_project;
  member.cert_subjects = options.cert_subjects;
  if (auto problem = identity::validateMember(member)) {
    err << "sluicectl: " << *problem << "\n";
    return 2;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    CliAdminStores admin(pool);
    const auto added = identity::adminAddMember(admin.stores, member, now);
    if (!added) {
      err << "sluicectl: " << added.error().message << "\n";
      return added.error().kind == identity::MemberErrorKind::Invalid ? 2 : 1;
    }
    if (json) {
      out << memberJson(*added).dump(2) << "\n";
    } else {
      out << "added " << identity::toString(added->role) << " " << added->name << " (groups " << joined(added->groups)
          << "; projects " << joined(added->projects, added->primary_project);
      if (!added->cert_subjects.empty()) out << "; certificate subjects " << quotedSubjects(added->cert_subjects);
      out << ")\n";
    }
    return 0;
  });
}

int usersList(const std::string& database_url, bool json, std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgMemberRoster roster(pool);
    const auto rows = roster.listMembers();
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& row : rows) list.push_back(memberJson(identity::memberOf(row), row.source));
      out << list.dump(2) << "\n";
      return 0;
    }
    Table table({"NAME", "ROLE", "SOURCE", "GROUPS", "PROJECTS (* primary)", "CERT SUBJECTS", "STATUS", "CREATED"});
    for (const auto& row : rows) {
      const identity::Member member = identity::memberOf(row);
      table.addRow({member.name, std::string(identity::toString(member.role)), row.source, joined(member.groups),
                    joined(member.projects, member.primary_project), quotedSubjects(member.cert_subjects),
                    member.disabled_at ? "disabled " + readableUtc(*member.disabled_at) : "active",
                    readableUtc(member.created_at)});
    }
    table.print(out);
    out << rows.size() << (rows.size() == 1 ? " member\n" : " members\n");
    return 0;
  });
}

int usersSetDisabled(const std::string& database_url, const std::string& name, bool disabled, bool force, bool json,
                     std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    CliAdminStores admin(pool);
    if (refusedAsProvisioned(admin.members, name, force, err)) return 1;
    const auto result = identity::adminSetDisabled(admin.stores, name, disabled, now);
    if (!result) {
      err << "sluicectl: " << result.error().message << "\n";
      return 1;
    }
    if (json) {
      out << nlohmann::json({{"name", name}, {"disabled", disabled}, {"changed", *result}}).dump(2) << "\n";
    } else if (!*result) {
      out << name << (disabled ? " was already disabled\n" : " was already enabled\n");
    } else if (disabled) {
      out << "disabled " << name << ": every key of theirs stops working within 5 seconds\n";
    } else {
      out << "enabled " << name << ": their unrevoked keys work again within 5 seconds\n";
    }
    return 0;
  });
}

int usersUpdate(const std::string& database_url, const UsersUpdateOptions& options, bool json,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  identity::MemberUpdate update;
  if (options.role) {
    update.role = identity::parseRole(*options.role);
    if (!update.role) {
      err << "sluicectl: --role must be member or admin, got '" << *options.role << "'\n";
      return 2;
    }
  }
  if (!options.groups.empty() || options.no_groups) update.groups = options.groups;
  if (!options.projects.empty() || options.no_projects) update.projects = options.projects;
  update.primary_project = options.primary_project;
  if (!update.role && !update.groups && !update.projects && !update.primary_project) {
    err << "sluicectl: users update needs a change: --role, --group, --no-groups, --project, --no-projects or "
           "--primary-project\n";
    return 2;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    CliAdminStores admin(pool);
    if (refusedAsProvisioned(admin.members, options.name, options.force, err)) return 1;
    const auto before = identity::findMember(admin.members, options.name);
    const auto updated = identity::adminUpdateMember(admin.stores, options.name, update, now);
    if (!updated) {
      err << "sluicectl: " << updated.error().message << "\n";
      return updated.error().kind == identity::MemberErrorKind::Invalid ? 2 : 1;
    }
    if (json) {
      out << memberJson(*updated).dump(2) << "\n";
    } else {
      out << "updated " << updated->name << ": " << identity::describeUpdate(*before, *updated) << "\n";
    }
    return 0;
  });
}

int usersDelete(const std::string& database_url, const std::string& name, bool force, bool json,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    CliAdminStores admin(pool);
    if (refusedAsProvisioned(admin.members, name, force, err)) return 1;
    const auto deleted = identity::adminDeleteMember(admin.stores, name, now);
    if (!deleted) {
      err << "sluicectl: " << deleted.error().message << "\n";
      return 1;
    }
    if (json) {
      out << nlohmann::json({{"name", name}, {"deleted", true}}).dump(2) << "\n";
    } else {
      out << "deleted " << name << " (the record of their changes stays: sluicectl users history " << name << ")\n";
    }
    return 0;
  });
}

int usersHistory(const std::string& database_url, const std::optional<std::string>& name, size_t limit, bool json,
                 std::ostream& out, std::ostream& err) {
  if (limit < 1 || limit > 10000) {
    err << "sluicectl: --limit must be 1 to 10000\n";
    return 2;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgAdminEvents events(pool);
    const auto rows = events.recent(limit, name);
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& row : rows) {
        list.push_back({{"at", jsonTime(row.at)}, {"actor", row.actor}, {"action", row.action},
                        {"member", row.target}, {"detail", row.detail}});
      }
      out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return 0;
    }
    Table table({"WHEN", "WHO", "ACTION", "MEMBER", "DETAIL"});
    for (const auto& row : rows) {
      table.addRow({readableUtc(row.at), row.actor, row.action, row.target, row.detail.empty() ? "-" : row.detail});
    }
    table.print(out);
    out << rows.size() << (rows.size() == 1 ? " change\n" : " changes\n");
    return 0;
  });
}

int usersCertSubject(const std::string& database_url, const std::string& name, const std::string& subject, bool add,
                     bool json, std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  const auto parsed = identity::parseCertSubject(subject);
  if (!parsed) {
    err << "sluicectl: " << parsed.error() << "\n";
    return 2;
  }
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgMemberRoster roster(pool);
    if (add) {
      const auto added = identity::addCertSubject(roster, name, subject, now);
      if (!added) {
        err << "sluicectl: " << added.error().message << "\n";
        return added.error().kind == identity::MemberErrorKind::Invalid ? 2 : 1;
      }
      if (json) {
        out << nlohmann::json({{"name", name}, {"cert_subject", *added}, {"added", true}}).dump(2) << "\n";
      } else {
        out << "certificate subject " << *added << " now identifies " << name << "\n";
      }
      return 0;
    }
    if (!identity::removeCertSubject(roster, name, subject)) {
      err << "sluicectl: " << name << " has no certificate subject " << *parsed << "\n";
      return 1;
    }
    if (json) {
      out << nlohmann::json({{"name", name}, {"cert_subject", *parsed}, {"removed", true}}).dump(2) << "\n";
    } else {
      out << "certificate subject " << *parsed << " no longer identifies " << name
          << " (gateways stop taking it within 2 seconds)\n";
    }
    return 0;
  });
}

}  // namespace sluice::cli
