#include "server/boot/readiness.h"

#include <chrono>
#include <exception>
#include <string>

#include "server/log/json_log.h"
#include "server/store/pg_database_check.h"

namespace sluice::boot {

namespace {

constexpr std::chrono::seconds kPeriod{1};

// One check; the reason when the database did not answer, "" when it did. Never throws.
std::string check(store::DatabaseCheck& database) {
  try {
    database.ping();
    return "";
  } catch (const std::exception& error) {
    const std::string reason = error.what();
    return reason.empty() ? "unknown error" : reason;
  }
}

// Checks and records; logs only when the verdict changes (not once a second while it holds).
class ReadinessCheck {
 public:
  ReadinessCheck(std::shared_ptr<store::DatabaseCheck> database, http::Gateway& gateway)
      : database_(std::move(database)), gateway_(gateway), readiness_(gateway.databaseReadiness()),
        started_(std::chrono::system_clock::now()) {}

  void run() {
    const std::string reason = check(*database_);
    const bool reachable = reason.empty();
    if (reachable && ++runs_ % kHeartbeatEvery == 1) heartbeat();
    readiness_.record(reachable, http::DatabaseReadiness::Clock::now());
    if (reachable && last_ != Last::Reachable) {
      if (last_ == Last::Unreachable) log::info("database reachable again");
    } else if (!reachable && last_ != Last::Unreachable) {
      log::warn("database unreachable", {{"check", "readiness"}, {"error", reason}});
    }
    last_ = reachable ? Last::Reachable : Last::Unreachable;
  }

 private:
  // This replica's row in fleet_replicas: its catalog version, for the console's fleet view.
  void heartbeat() {
    const auto catalog = gateway_.catalog();
    if (!catalog) return;
    try {
      database_->heartbeat(store::ReplicaBeat{gateway_.options().replica_name, catalog->version, started_,
                                              gateway_.draining().load()});
    } catch (const std::exception& error) {
      if (!heartbeat_failed_) log::warn("fleet heartbeat not written", {{"error", error.what()}});
      heartbeat_failed_ = true;
      return;
    }
    heartbeat_failed_ = false;
  }

  static constexpr uint64_t kHeartbeatEvery = 5;  // checks (seconds)
  enum class Last { None, Reachable, Unreachable };
  std::shared_ptr<store::DatabaseCheck> database_;
  http::Gateway& gateway_;
  http::DatabaseReadiness& readiness_;
  std::chrono::system_clock::time_point started_;
  uint64_t runs_ = 0;
  bool heartbeat_failed_ = false;
  Last last_ = Last::None;
};

}  // namespace

std::unique_ptr<util::BackgroundTask> startReadinessCheck(http::Gateway& gateway) {
  const auto& url = gateway.options().database_url;
  if (!url) return nullptr;
  // NOTE: sharing identity's pool, the check leases one of its connections for a SELECT 1 a
  // second; without identity the pool holds the one connection the check reuses.
  auto pool = gateway.identity().pool;
  if (!pool) pool = std::make_shared<store::ConnectionPool>(*url, store::PoolOptions{.max_connections = 1});
  auto readiness = std::make_shared<ReadinessCheck>(std::make_shared<store::PgDatabaseCheck>(std::move(pool)), gateway);
  readiness->run();
  auto task = std::make_unique<util::BackgroundTask>(util::BackgroundTask::every(kPeriod, [readiness] { readiness->run(); }),
                                                     util::BackgroundTask::FirstRun::AfterWait, kPeriod);
  task->start();
  return task;
}

}  // namespace sluice::boot
