#pragma once
// What every console API function shares: the gateway, its stores (on the console's own database
// pool) and the sessions. One per installed console; thread-safe (each member is).

#include <memory>
#include <mutex>
#include <string>

#include "server/admin/oidc_sign_in.h"
#include "server/admin/session_table.h"
#include "server/admin/sign_in_throttle.h"
#include "server/http/gateway.h"
#include "server/identity/vault.h"
#include "server/store/admin_events.h"
#include "server/store/console_sessions.h"
#include "server/store/credential_locker.h"
#include "server/store/database_check.h"
#include "server/store/key_directory.h"
#include "server/store/key_registry.h"
#include "server/store/member_roster.h"
#include "server/store/quota_counters.h"
#include "server/store/request_log.h"
#include "server/store/traffic_stats.h"

namespace sluice::admin {

struct ConsoleContext {
  explicit ConsoleContext(http::Gateway& g) : gateway(g), sign_on(g.upstream()) {}
  http::Gateway& gateway;
  OidcSignIn sign_on;  // single sign-on, when gateway.console.oidc is set
  // Seals members' personal credentials set on their account page; null without a master key.
  std::shared_ptr<const identity::Vault> vault;
  // Null without a database.
  std::shared_ptr<store::ConsoleSessions> stored_sessions;
  std::shared_ptr<store::KeyDirectory> keys;
  std::shared_ptr<store::MemberRoster> members;            // the Members and access-control pages
  std::shared_ptr<store::KeyRegistry> key_registry;        // the Members page's keys
  std::shared_ptr<store::AdminEvents> admin_events;        // the record of member and key changes
  std::shared_ptr<store::CredentialLocker> credentials;    // which personal credentials are set
  std::shared_ptr<store::QuotaCounters> quota_counters;    // the Members page's live counters
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
