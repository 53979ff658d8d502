#pragma once
// store::AdminEvents in memory, to PgAdminEvents's contract (tests/server/store/admin_events_test.cc
// runs both): ids increase from 1; recent() is newest first by time, then id. Thread-safe.

#include <mutex>
#include <vector>

#include "server/store/admin_events.h"

namespace sluice::fakes {

class FakeAdminEvents : public store::AdminEvents {
 public:
  store::AdminEventRow append(const store::AdminEventRow& event) override;
  std::vector<store::AdminEventRow> recent(size_t limit, const std::optional<std::string>& target) override;

 private:
  std::mutex mutex_;
  std::vector<store::AdminEventRow> rows_;
};

}  // namespace sluice::fakes
