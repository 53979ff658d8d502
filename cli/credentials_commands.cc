#include "cli/credentials_commands.h"

#include <termios.h>
#include <unistd.h>

#include <expected>
#include <iostream>
#include <iterator>
#include <ostream>

#include <nlohmann/json.hpp>
#include <openssl/crypto.h>

#include "cli/database_session.h"
#include "cli/identity_time.h"
#include "cli/table.h"
#include "server/config/catalog_loader.h"
#include "server/identity/credential_store.h"
#include "server/identity/vault.h"
#include "server/store/pg_credential_locker.h"

namespace sluice::cli {

namespace {

// Wipes the secret when it goes out of scope.
struct Secret {
  std::string text;
  ~Secret() { OPENSSL_cleanse(text.data(), text.size()); }
};

void trim(std::string& text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  size_t end = text.size();
  while (end > 0 && space(text[end - 1])) --end;
  size_t begin = 0;
  while (begin < end && space(text[begin])) ++begin;
  text = text.substr(begin, end - begin);
}

// From a terminal, one line with echo off; from a pipe or file, everything.
void readSecret(std::istream& in, Secret& secret, std::ostream& err) {
  const bool terminal = &in == &std::cin && isatty(STDIN_FILENO);
  if (terminal) {
    err << "Paste the key, then press Enter (it is not shown): " << std::flush;
    termios saved{};
    tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    std::getline(in, secret.text);
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    err << "\n";
  } else {
    secret.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  trim(secret.text);
}

// 0 when `credential` is a personal credential of the catalog in `services_dir`, else 2 (printed).
int checkPersonalCredential(const std::string& services_dir, const std::string& credential,
                            const std::map<std::string, std::string>& env, std::ostream& err) {
  const auto compiled = config::loadCatalog(services_dir, env);
  if (!compiled.ok()) {
    err << "sluicectl: cannot check credential '" << credential << "': the catalog in " << services_dir
        << " is not valid (see `sluicectl catalog check " << services_dir << "`; --services names another)\n";
    return 2;
  }
  const catalog::Credential* found = compiled.catalog->credential(credential);
  if (found == nullptr) {
    std::string personal;
    for (const auto& c : compiled.catalog->credentials) {
      if (c.kind == catalog::CredentialKind::Personal) personal += (personal.empty() ? "" : ", ") + c.id;
    }
    err << "sluicectl: no credential '" << credential << "' in " << services_dir << "/ai/credentials.yaml"
        << (personal.empty() ? std::string(" (it declares no personal credential)") : "; personal ones: " + personal)
        << "\n";
    return 2;
  }
  if (found->kind != catalog::CredentialKind::Personal) {
    err << "sluicectl: credential '" << credential
        << "' is kind: platform; its one secret comes from credentials.yaml, not from members\n";
    return 2;
  }
  return 0;
}

std::expected<identity::MasterKey, int> currentMasterKey(const std::map<std::string, std::string>& env,
                                                         std::ostream& err) {
  auto key = identity::masterKeyFromEnvironment(env);
  if (!key) {
    err << "sluicectl: " << key.error() << "\n";
    return std::unexpected(2);
  }
  if (!*key) {
    err << "sluicectl: this command needs the gateway's master key: SLUICE_MASTER_KEY (64 hex digits or base64 of "
           "32 bytes) or SLUICE_MASTER_KEY_FILE\n";
    return std::unexpected(2);
  }
  return **key;
}

}  // namespace

int credentialsSet(const std::string& database_url, const std::string& services_dir, const std::string& credential,
                   const std::string& user, std::istream& in, const std::map<std::string, std::string>& env,
                   bool json, std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  if (database_url.empty()) {
    err << "sluicectl: this command needs a database: --database-url URL or SLUICE_DATABASE_URL\n";
    return 2;
  }
  auto master = currentMasterKey(env, err);
  if (!master) return master.error();
  if (const int code = checkPersonalCredential(services_dir, credential, env, err); code != 0) return code;
  Secret secret;
  readSecret(in, secret, err);
  if (secret.text.empty()) {
    err << "sluicectl: no key on stdin; pipe it in, e.g. `sluicectl credentials set " << credential << " --user "
        << user << " < key.txt`\n";
    return 2;
  }
  const identity::Vault vault(*master);
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgCredentialLocker locker(pool);
    const auto result = identity::setPersonalCredential(locker, vault, user, credential, secret.text, now);
    if (result == identity::SetCredentialResult::NoSuchMember) {
      err << "sluicectl: no member named '" << user << "'\n";
      return 1;
    }
    const bool replaced = result == identity::SetCredentialResult::Replaced;
    if (json) {
      out << nlohmann::json({{"user", user},
                             {"credential", credential},
                             {"master_key_id", vault.keyId()},
                             {"replaced", replaced}})
                 .dump(2)
          << "\n";
    } else {
      out << (replaced ? "replaced" : "stored") << " " << user << "'s key for " << credential
          << ", encrypted under master key " << vault.keyId() << "\n";
    }
    return 0;
  });
}

int credentialsList(const std::string& database_url, const std::optional<std::string>& user, bool json,
                    std::ostream& out, std::ostream& err) {
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgCredentialLocker locker(pool);
    const auto rows = identity::listPersonalCredentials(locker, user);
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& row : rows) {
        list.push_back({{"user", row.user},
                        {"credential", row.credential_id},
                        {"master_key_id", row.master_key_id},
                        {"updated_at", jsonTime(row.updated_at)}});
      }
      out << list.dump(2) << "\n";
      return 0;
    }
    Table table({"USER", "CREDENTIAL", "MASTER KEY", "UPDATED"});
    for (const auto& row : rows) {
      table.addRow({row.user, row.credential_id, row.master_key_id, readableUtc(row.updated_at)});
    }
    table.print(out);
    out << rows.size() << (rows.size() == 1 ? " personal credential set\n" : " personal credentials set\n");
    return 0;
  });
}

int credentialsRotateMaster(const std::string& database_url, const std::optional<std::string>& old_key_file,
                            const std::map<std::string, std::string>& env, bool json,
                            std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  if (database_url.empty()) {
    err << "sluicectl: this command needs a database: --database-url URL or SLUICE_DATABASE_URL\n";
    return 2;
  }
  auto current = currentMasterKey(env, err);
  if (!current) return current.error();
  std::optional<identity::MasterKey> old;
  if (old_key_file) {
    auto read = identity::readMasterKeyFile(*old_key_file);
    if (!read) {
      err << "sluicectl: --old-key-file: " << read.error() << "\n";
      return 2;
    }
    old = *read;
  } else {
    auto from_env =
        identity::masterKeyFromEnvironment(env, identity::kOldMasterKeyVariable, identity::kOldMasterKeyFileVariable);
    if (!from_env) {
      err << "sluicectl: " << from_env.error() << "\n";
      return 2;
    }
    old = *from_env;
  }
  if (!old) {
    err << "sluicectl: rotate-master needs the old master key: --old-key-file PATH, SLUICE_MASTER_KEY_OLD or "
           "SLUICE_MASTER_KEY_OLD_FILE (and the new one in SLUICE_MASTER_KEY)\n";
    return 2;
  }
  if (old->id() == current->id()) {
    err << "sluicectl: the old and the new master key are the same key (" << old->id() << ")\n";
    return 2;
  }
  const identity::Vault vault(*current, {*old});
  return withPool(database_url, err, [&](const std::shared_ptr<store::ConnectionPool>& pool) {
    store::PgCredentialLocker locker(pool);
    const auto report = identity::rotateMasterKey(locker, vault, now);
    if (!report) {
      err << "sluicectl: " << report.error() << "\n";
      return 1;
    }
    if (json) {
      out << nlohmann::json({{"old_master_key_id", old->id()},
                             {"master_key_id", vault.keyId()},
                             {"rotated", report->rotated},
                             {"already_current", report->already_current}})
                 .dump(2)
          << "\n";
    } else {
      out << "re-encrypted " << report->rotated << " personal credential" << (report->rotated == 1 ? "" : "s")
          << " from master key " << old->id() << " to " << vault.keyId() << " (" << report->already_current
          << " already under it)\n";
      out << "Run every gateway with the new SLUICE_MASTER_KEY; the old key is no longer needed.\n";
    }
    return 0;
  });
}

}  // namespace sluice::cli
