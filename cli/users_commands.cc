#include "cli/users_commands.h"

#include <ostream>

#include <nlohmann/json.hpp>

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

nlohmann::json memberJson(const identity::Member& member) {
  return {{"name", member.name},
          {"role", identity::toString(member.role)},
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
    store::PgMemberRoster roster(pool);
    const auto added = identity::addMember(roster, member, now);
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
    const auto members = identity::listMembers(roster);
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& member : members) list.push_back(memberJson(member));
      out << list.dump(2) << "\n";
      return 0;
    }
    Table table({"NAME", "ROLE", "GROUPS", "PROJECTS (* primary)", "CERT SUBJECTS", "STATUS", "CREATED"});
    for (const auto& member : members) {
      table.addRow({member.name, std::string(identity::toString(member.role)), joined(member.groups),
                    joined(member.projects, member.primary_project), quotedSubjects(member.cert_subjects),
                    member.disabled_at ? "disabled " + readableUtc(*member.disabled_at) : "active",
                    readableUtc(member.created_at)});
    }
    table.print(out);
    out << members.size() << (members.size() == 1 ? " member\n" : " members\n");
    return 0;
  });
}

int usersDisable(const std::string& database_url, const std::string& name, bool json,
                 std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgMemberRoster roster(pool);
    const auto result = identity::disableMember(roster, name, now);
    if (result == identity::DisableResult::NoSuchMember) {
      err << "sluicectl: no member named '" << name << "'\n";
      return 1;
    }
    const bool changed = result == identity::DisableResult::Disabled;
    if (json) {
      out << nlohmann::json({{"name", name}, {"disabled", true}, {"changed", changed}}).dump(2) << "\n";
    } else if (changed) {
      out << "disabled " << name << ": every key of theirs stops working within 5 seconds\n";
    } else {
      out << name << " was already disabled\n";
    }
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
