#pragma once
// The stores sluicectl's member and key changes go through (server/identity/member_admin.h), on one
// pool, with the actor every change is recorded under: "cli:<name>", the name from
// $SLUICECTL_ACTOR, else $SUDO_USER, $USER or $LOGNAME (the operating-system user running it).

#include <memory>
#include <string>

#include "server/identity/member_admin.h"
#include "server/store/pg_admin_events.h"
#include "server/store/pg_key_registry.h"
#include "server/store/pg_member_roster.h"

namespace sluice::cli {

std::string cliActor();

struct CliAdminStores {
  explicit CliAdminStores(const std::shared_ptr<store::ConnectionPool>& pool)
      : members(pool), keys(pool), events(pool), stores{members, keys, events, cliActor()} {}
  store::PgMemberRoster members;
  store::PgKeyRegistry keys;
  store::PgAdminEvents events;
  identity::AdminStores stores;
};

}  // namespace sluice::cli
