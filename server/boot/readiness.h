#pragma once
// Readiness boot: the background check behind GET /readyz. Used by main's thread only.

#include <memory>

#include "server/http/gateway.h"
#include "server/util/background_task.h"

namespace sluice::boot {

// With a database: checks once now (so /readyz is right as soon as the server listens), then
// every second on a thread of its own, that the database answers `SELECT 1` through a pooled
// connection (the identity pool's, or with --insecure-no-auth a pool of one connection of its
// own: no check opens a session of its own), and records the verdict in
// gateway.databaseReadiness(). A change of verdict is logged, with libpq's reason when the
// database cannot be reached. nullptr without a database. The task must go before the gateway.
std::unique_ptr<util::BackgroundTask> startReadinessCheck(http::Gateway& gateway);

}  // namespace sluice::boot
