#pragma once
// Keeps `ai_requests`' day partitions: creates today's and the next `days_ahead` days' (UTC) ahead
// of need, and drops the partitions (and hourly usage) older than `retention_days`. Runs at
// start() and then every `interval` on its own thread; several replicas doing it at once is safe.
// Thread-safe: maintain() may be called from any thread.

#include <chrono>
#include <string>
#include <vector>

#include "server/util/background_task.h"

namespace sluice::audit {

struct PartitionKeeperOptions {
  std::string database_url;
  int retention_days = 90;   // 0 keeps everything
  int days_ahead = 2;
  std::chrono::milliseconds interval = std::chrono::hours(1);
};

struct MaintenanceReport {
  std::vector<std::string> ensured;   // partitions that exist now for today … today + days_ahead
  std::vector<std::string> dropped;
};

class PartitionKeeper {
 public:
  explicit PartitionKeeper(PartitionKeeperOptions options);
  ~PartitionKeeper();  // stop()
  PartitionKeeper(const PartitionKeeper&) = delete;
  PartitionKeeper& operator=(const PartitionKeeper&) = delete;

  // One pass as of `now`. Throws pqxx errors (PostgreSQL unreachable, …).
  MaintenanceReport maintain(std::chrono::system_clock::time_point now);

  // Runs maintain() now and every interval on a thread; failures are logged and retried at the
  // next tick (within a minute after a failure). Idempotent.
  void start();
  void stop();

 private:
  // One pass as of now, logged; returns the wait before the next.
  util::BackgroundTask::Duration tick();

  PartitionKeeperOptions options_;
  util::BackgroundTask task_;
};

}  // namespace sluice::audit
