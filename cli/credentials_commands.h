#pragma once
// `sluicectl credentials set|list|rotate-master`: members' personal provider keys, encrypted at
// rest with the master key (SLUICE_MASTER_KEY or SLUICE_MASTER_KEY_FILE, the gateway's own).
// A key is read from stdin, never from the command line, and no command ever prints one.
// Exit codes: 0 success, 1 runtime failure (database, no such member, a row that cannot be
// re-encrypted), 2 invalid input (no URL, no or malformed master key, a credential that is not a
// personal credential of the catalog, nothing on stdin).

#include <chrono>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

namespace sluice::cli {

// Reads the key from `in` (a terminal: one line without echo; otherwise everything, surrounding
// whitespace removed). `services_dir`: the catalog, to check that CREDENTIAL is `kind: personal`.
int credentialsSet(const std::string& database_url, const std::string& services_dir, const std::string& credential,
                   const std::string& user, std::istream& in, const std::map<std::string, std::string>& env,
                   bool json, std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);
// Which members have set which credentials, under which master key, and when; never a value.
int credentialsList(const std::string& database_url, const std::optional<std::string>& user, bool json,
                    std::ostream& out, std::ostream& err);
// Re-encrypts every stored value from the old master key (`old_key_file`, else SLUICE_MASTER_KEY_OLD
// or SLUICE_MASTER_KEY_OLD_FILE) to the new one (SLUICE_MASTER_KEY or SLUICE_MASTER_KEY_FILE), in one
// transaction: all or nothing.
int credentialsRotateMaster(const std::string& database_url, const std::optional<std::string>& old_key_file,
                            const std::map<std::string, std::string>& env, bool json,
                            std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
