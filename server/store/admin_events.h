#pragma once
// The admin_events table (migrations/0014_admin_events.sql): every change an administrator makes to
// members and API keys, appended after the change is stored, read newest first. Rows are checked
// before they get here (identity's admin_audit.h bounds and shapes them).
//
// Implementations: PgAdminEvents, tests/fakes/fake_admin_events.h. Thread-safe. Environment failures
// (PostgreSQL down, a busy pool) throw.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::store {

struct AdminEventRow {
  int64_t id = 0;  // set by the store, increasing
  std::chrono::system_clock::time_point at;
  std::string actor;   // "console:<admin>", "cli:<os user>" or "scim" (provisioning)
  std::string action;  // "member.add", "member.update", "member.disable", "member.enable",
                       // "member.delete", "key.create", "key.revoke"
  std::string target;  // the member the change was made to
  std::string detail;  // what changed ("role member -> admin; groups eng -> eng,ops"); never a secret
};

class AdminEvents {
 public:
  virtual ~AdminEvents() = default;
  // Stores `event` (its id ignored) and returns it with its id.
  virtual AdminEventRow append(const AdminEventRow& event) = 0;
  // Newest first (by time, then id), at most `limit`; only those about `target` when given.
  virtual std::vector<AdminEventRow> recent(size_t limit, const std::optional<std::string>& target) = 0;
};

}  // namespace sluice::store
