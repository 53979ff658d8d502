#pragma once
// The identity database tests' shared scratch database (migrated), and helpers to seed it.
// Tests use distinct member names, so they can share it.

#include <chrono>
#include <string>
#include <vector>

#include "server/identity/member_store.h"
#include "server/store/pg_key_directory.h"
#include "server/store/pg_key_registry.h"
#include "server/store/pg_member_roster.h"
#include "server/store/pg_quota_counters.h"
#include "tests/server/store/scratch_database.h"

namespace sluice::test {

inline ScratchDatabase& identityDatabase() {
  static ScratchDatabase instance;
  return instance;
}

// 2026-11-29T21:43:20Z: tests pass their own `now`.
inline const std::chrono::system_clock::time_point kTestNow{std::chrono::seconds(1'795'988'600)};

// The shared scratch database's members and keys, as sluicectl writes them.
inline std::shared_ptr<store::ConnectionPool> identityPool() {
  static const auto pool = std::make_shared<store::ConnectionPool>(identityDatabase().url());
  return pool;
}
inline store::MemberRoster& members() {
  static store::PgMemberRoster roster(identityPool());
  return roster;
}
inline store::KeyRegistry& keys() {
  static store::PgKeyRegistry registry(identityPool());
  return registry;
}

inline identity::Member addTestMember(const std::string& name, std::vector<std::string> projects = {},
                                      std::vector<std::string> groups = {}, identity::Role role = identity::Role::Member) {
  identity::NewMember member;
  member.name = name;
  member.role = role;
  member.projects = std::move(projects);
  member.groups = std::move(groups);
  if (!member.projects.empty()) member.primary_project = member.projects.front();
  return identity::addMember(members(), member, kTestNow).value();
}

// The PostgreSQL implementations under test, each on a pool of its own (`url`: the scratch
// database unless given).
inline std::shared_ptr<store::KeyDirectory> keyDirectory(const std::string& url, store::PoolOptions options = {}) {
  return std::make_shared<store::PgKeyDirectory>(std::make_shared<store::ConnectionPool>(url, options));
}
inline std::shared_ptr<store::KeyDirectory> keyDirectory() { return keyDirectory(identityDatabase().url()); }
inline std::shared_ptr<store::QuotaCounters> quotaCounters(const std::string& url, store::PoolOptions options = {}) {
  return std::make_shared<store::PgQuotaCounters>(std::make_shared<store::ConnectionPool>(url, options));
}

}  // namespace sluice::test
