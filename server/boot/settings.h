#pragma once
// What the command line and the environment configure: the server's options and the settings of
// the audit trail and of live reload (server/boot/flags.h reads them).

#include <string>

#include "server/http/gateway.h"

namespace sluice::boot {

struct AuditSettings {
  bool no_migrate = false;
  std::string migrations_dir;  // empty: the migrations compiled into the binary
  int retention_days = 90;
  std::string spool_path;      // empty: kDefaultSpool, else ./sluice-audit.spool
  bool journal = true;         // <spool>.journal: a killed process still leaves its rows
};

struct ReloadSettings {
  int watch_ms = 500;  // 0: no file watch (SIGHUP only)
};

struct ProvisioningSettings {
  std::string scim_token_file;  // --scim-token-file; empty: SCIM provisioning is off (/scim answers 404)
};

struct Settings {
  http::ServerOptions server;  // --database-url lives here
  AuditSettings audit;
  ReloadSettings reload;
  ProvisioningSettings provisioning;
};

}  // namespace sluice::boot
