#pragma once
// `sluicectl users add|list|disable|cert-subject`: the members who may call the gateway. Each
// returns the exit code: 0 success, 1 runtime failure (database unreachable or failing, the member
// already exists, no such member, a certificate subject that already stands for another member),
// 2 invalid input (no URL, a bad name, role or certificate subject, a primary project not listed).

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
// By name: role, groups, projects (the primary one marked *), status.
int usersList(const std::string& database_url, bool json, std::ostream& out, std::ostream& err);
// Idempotent: disabling a disabled member succeeds and says so.
int usersDisable(const std::string& database_url, const std::string& name, bool json,
                 std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

// `users cert-subject add|remove NAME SUBJECT`: `add` true adds (idempotent for the same member),
// false removes (1 when the member did not have it).
int usersCertSubject(const std::string& database_url, const std::string& name, const std::string& subject, bool add,
                     bool json, std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
