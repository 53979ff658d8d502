#pragma once
// `sluicectl users add|list|update|disable|enable|delete|history|cert-subject`: the members who may
// call the gateway. Every change is recorded in admin_events (cli/admin_stores.h names the actor). Each
// returns the exit code: 0 success, 1 runtime failure (database unreachable or failing, the member
// already exists, no such member, a certificate subject that already stands for another member,
// the last enabled admin, a member with history to delete),
// 2 invalid input (no URL, a bad name, role or certificate subject, a primary project not listed).
//
// A member made by SCIM provisioning (source "scim") belongs to the identity provider: update,
// disable, enable and delete refuse it (1, saying so) unless `force` (--force), since the identity
// provider would set it back at its next sync. Its keys and certificate subjects stay the CLI's.

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace sluice::cli {

struct UsersAddOptions {
  std::string name;
  std::string role;
  std::vector<std::string> groups;
  std::vector<std::string> projects;
  std::optional<std::string> primary_project;
  std::vector<std::string> cert_subjects;  // --cert-subject, as written (cn:…, uri:…, email:…)
};

int usersAdd(const std::string& database_url, const UsersAddOptions& options, bool json,
             std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// By name: role, where it was made (cli, console, sso, scim), groups, projects (the primary one
// marked *), status.
int usersList(const std::string& database_url, bool json, std::ostream& out, std::ostream& err);
struct UsersUpdateOptions {
  std::string name;
  std::optional<std::string> role;
  std::vector<std::string> groups;    // --group: the whole new list
  bool no_groups = false;             // --no-groups: clear them
  std::vector<std::string> projects;  // --project: the whole new list
  bool no_projects = false;
  std::optional<std::string> primary_project;  // "" for none
  bool force = false;  // --force: change a member made by SCIM
};

int usersUpdate(const std::string& database_url, const UsersUpdateOptions& options, bool json,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// `disabled` true disables, false enables. Idempotent: either on a member already so succeeds and
// says so; refused (1) when it would disable the last enabled admin.
int usersSetDisabled(const std::string& database_url, const std::string& name, bool disabled, bool force, bool json,
                     std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// Deletes a member who never had an API key and whom no audited request names (a member added by
// mistake); anyone else is refused (1): disable them instead. Their admin events stay.
int usersDelete(const std::string& database_url, const std::string& name, bool force, bool json,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// The admin events (member and key changes), newest first; only those about `name` when given.
int usersHistory(const std::string& database_url, const std::optional<std::string>& name, size_t limit, bool json,
                 std::ostream& out, std::ostream& err);

// `users cert-subject add|remove NAME SUBJECT`: `add` true adds (idempotent for the same member),
// false removes (1 when the member did not have it).
int usersCertSubject(const std::string& database_url, const std::string& name, const std::string& subject, bool add,
                     bool json, std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
