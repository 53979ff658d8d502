#pragma once
// Identity boot: API keys and quotas backed by PostgreSQL (connection pool, authenticator with
// the credential vault, quota store), or anonymous serving with --insecure-no-auth; and the
// hourly pruning of old quota counters. Used by main's thread only.

#include <memory>

#include "server/http/gateway.h"
#include "server/util/background_task.h"

namespace sluice::boot {

// With a database and without --insecure-no-auth: puts the identity (and the Responses store) in
// `wiring` and logs "API keys required"; otherwise logs that keys are not checked. Returns 2 when
// the vault's environment is invalid (printed to stderr), 0 to go on.
int bootIdentity(const http::ServerOptions& options, http::Wiring& wiring);

// Deletes the quota counters of windows that ended more than a day ago: now, then hourly. Logs
// what it pruned or why it could not. nullptr when the gateway keeps no quotas. The task must go
// before the gateway.
std::unique_ptr<util::BackgroundTask> startQuotaHousekeeping(http::Gateway& gateway);

}  // namespace sluice::boot
