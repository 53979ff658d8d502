#include "server/audit/partition_keeper.h"

#include <algorithm>

#include "server/log/json_log.h"
#include "server/store/audit_store.h"
#include "server/store/database.h"

namespace sluice::audit {

PartitionKeeper::PartitionKeeper(PartitionKeeperOptions options)
    : options_(std::move(options)), task_([this] { return tick(); }) {}

PartitionKeeper::~PartitionKeeper() { stop(); }

MaintenanceReport PartitionKeeper::maintain(std::chrono::system_clock::time_point now) {
  const auto today = std::chrono::floor<std::chrono::days>(now);
  auto connection = store::connect(options_.database_url);
  MaintenanceReport report;
  report.ensured = store::ensureAuditPartitions(*connection, today, today + std::chrono::days(options_.days_ahead));
  if (options_.retention_days > 0) {
    // Keeps `retention_days` whole days before today, plus today.
    report.dropped = store::dropAuditPartitionsBefore(*connection, today - std::chrono::days(options_.retention_days));
  }
  return report;
}

void PartitionKeeper::start() { task_.start(); }

void PartitionKeeper::stop() { task_.stop(); }

util::BackgroundTask::Duration PartitionKeeper::tick() {
  bool failed = false;
  try {
    const auto report = maintain(std::chrono::system_clock::now());
    if (!report.dropped.empty()) {
      log::info("audit: dropped partitions past retention",
                {{"dropped", report.dropped}, {"retention_days", options_.retention_days}});
    }
  } catch (const std::exception& error) {
    log::warn("audit: partition maintenance failed; retrying soon", {{"error", error.what()}});
    failed = true;
  }
  return failed ? std::min<std::chrono::milliseconds>(options_.interval, std::chrono::minutes(1)) : options_.interval;
}

}  // namespace sluice::audit
