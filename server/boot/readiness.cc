#include "server/boot/readiness.h"

#include <chrono>
#include <exception>
#include <string>

#include <pqxx/pqxx>

#include "server/identity/connection_pool.h"
#include "server/log/json_log.h"

namespace sluice::boot {

namespace {

constexpr std::chrono::seconds kPeriod{1};

// One check; the reason when the database did not answer, "" when it did. Never throws.
std::string check(identity::ConnectionPool& pool) {
  try {
    pool.run([](pqxx::connection& connection) {
      pqxx::nontransaction query(connection);
      query.exec1("SELECT 1");
    });
    return "";
  } catch (const std::exception& error) {
    const std::string reason = error.what();
    return reason.empty() ? "unknown error" : reason;
  }
}

// Checks and records; logs only when the verdict changes (not once a second while it holds).
class ReadinessCheck {
 public:
  ReadinessCheck(std::shared_ptr<identity::ConnectionPool> pool, http::Gateway& gateway)
      : pool_(std::move(pool)), gateway_(gateway), readiness_(gateway.databaseReadiness()),
        started_(std::chrono::system_clock::now()) {}

  void run() {
    const std::string reason = check(*pool_);
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
      pool_->run([&](pqxx::connection& connection) {
        pqxx::work transaction(connection);
        transaction.exec_params(
            "INSERT INTO fleet_replicas (name, catalog_version, started_at, last_seen, draining)"
            " VALUES ($1, $2, to_timestamp($3), now(), $4)"
            " ON CONFLICT (name) DO UPDATE SET catalog_version = EXCLUDED.catalog_version,"
            " started_at = EXCLUDED.started_at, last_seen = now(), draining = EXCLUDED.draining",
            gateway_.options().replica_name, catalog->version,
            std::chrono::duration<double>(started_.time_since_epoch()).count(), gateway_.draining().load());
        transaction.exec("DELETE FROM fleet_replicas WHERE last_seen < now() - interval '1 day'");
        transaction.commit();
      });
    } catch (const std::exception& error) {
      if (!heartbeat_failed_) log::warn("fleet heartbeat not written", {{"error", error.what()}});
      heartbeat_failed_ = true;
      return;
    }
    heartbeat_failed_ = false;
  }

  static constexpr uint64_t kHeartbeatEvery = 5;  // checks (seconds)
  enum class Last { None, Reachable, Unreachable };
  std::shared_ptr<identity::ConnectionPool> pool_;
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
  if (!pool) pool = std::make_shared<identity::ConnectionPool>(*url, identity::PoolOptions{.max_connections = 1});
  auto readiness = std::make_shared<ReadinessCheck>(std::move(pool), gateway);
  readiness->run();
  auto task = std::make_unique<util::BackgroundTask>(util::BackgroundTask::every(kPeriod, [readiness] { readiness->run(); }),
                                                     util::BackgroundTask::FirstRun::AfterWait, kPeriod);
  task->start();
  return task;
}

}  // namespace sluice::boot
