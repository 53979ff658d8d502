#pragma once
// What every console API function shares: the gateway, the console's database pool, its stores
// and the sessions. One per installed console; thread-safe (each member is).

#include <memory>
#include <mutex>
#include <string>

#include "server/admin/session_table.h"
#include "server/admin/sign_in_throttle.h"
#include "server/http/gateway.h"
#include "server/store/connection_pool.h"
#include "server/store/console_sessions.h"
#include "server/store/database_check.h"
#include "server/store/key_directory.h"
#include "server/store/request_log.h"
#include "server/store/traffic_stats.h"

namespace sluice::admin {

struct ConsoleContext {
  explicit ConsoleContext(http::Gateway& g) : gateway(g) {}
  http::Gateway& gateway;
  std::shared_ptr<store::ConnectionPool> pool;  // null without a database
  // On `pool`; null without a database.
  std::shared_ptr<store::ConsoleSessions> stored_sessions;
  std::shared_ptr<store::KeyDirectory> keys;
  std::shared_ptr<store::RequestLog> requests;  // the Requests page's reads of the audit trail
  std::shared_ptr<store::TrafficStats> traffic;  // the analytics and gateway pages' statistics
  std::shared_ptr<store::DatabaseCheck> fleet;   // the settings page's fleet view
  SessionTable sessions;
  SignInThrottle sign_ins;  // failed sign-ins per peer address
  // Session cookies no replica knows, per peer address: each costs a database lookup.
  SignInThrottle unknown_sessions{SignInThrottlePolicy{.failures = 60, .window = std::chrono::seconds(60)}};
  std::mutex editor_mutex;  // one route-editor save at a time
};

}  // namespace sluice::admin
