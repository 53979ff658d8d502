#pragma once
// `sluicectl keys create|list|revoke`: members' API keys. A new key is printed once, alone on the
// last line of stdout; afterwards only its prefix (sk-sluice-<id>) is ever shown. Exit codes:
// 0 success, 1 runtime failure (database, no such member or key, member disabled, not a member of
// the project), 2 invalid input (no URL, a bad duration or key id).

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

namespace sluice::cli {

struct KeysCreateOptions {
  std::string user;
  std::optional<std::string> project;  // bind every request with this key to the project
  std::optional<std::string> expires;  // a duration: "90d", "12h", "2w"
  std::optional<std::string> name;     // a label: "laptop"
};

int keysCreate(const std::string& database_url, const KeysCreateOptions& options, bool json,
               std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// Newest first; status is active, expired or revoked at `now`.
int keysList(const std::string& database_url, const std::optional<std::string>& user, bool json,
             std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// `key`: the id, the prefix sk-sluice-<id>, or the whole key. Idempotent.
int keysRevoke(const std::string& database_url, const std::string& key, bool json,
               std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
