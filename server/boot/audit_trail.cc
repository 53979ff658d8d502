#include "server/boot/audit_trail.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "server/log/json_log.h"
#include "server/store/database.h"
#include "server/store/migrations.h"

namespace sluice::boot {

namespace {

constexpr const char* kDefaultSpool = "/var/lib/sluice/audit.spool";

std::string resolveSpoolPath(const std::string& configured) {
  if (!configured.empty()) return configured;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(kDefaultSpool).parent_path(), ignored);
  if (std::ofstream(kDefaultSpool, std::ios::app)) return kDefaultSpool;
  log::info("audit spool falls back to the working directory", {{"unwritable", kDefaultSpool}});
  return "sluice-audit.spool";
}

}  // namespace

int prepareDatabase(const std::string& url, const AuditSettings& settings) {
  std::vector<store::Migration> migrations = store::embeddedMigrations();
  if (!settings.migrations_dir.empty()) {
    auto loaded = store::loadMigrations(settings.migrations_dir);
    if (!loaded) {
      std::cerr << "sluice: " << loaded.error() << "\n";
      return 2;
    }
    migrations = std::move(*loaded);
  }
  try {
    auto connection = store::connect(url, 10);
    if (settings.no_migrate) {
      const auto status = store::migrationStatus(*connection, migrations);
      if (!status.pending.empty()) {
        char first[16];
        std::snprintf(first, sizeof first, "%04d_", status.pending.front().version);
        std::cerr << "sluice: the database at " << store::redactUrl(url) << " lacks " << status.pending.size()
                  << " migration(s) (first: " << first << status.pending.front().name
                  << ") and --no-migrate forbids applying them; run `sluicectl migrate` first\n";
        return 1;
      }
    } else {
      const auto applied = store::applyMigrations(*connection, migrations);
      if (!applied.empty()) log::info("database migrations applied", {{"versions", applied}});
    }
  } catch (const std::exception& error) {
    std::cerr << "sluice: cannot prepare the database at " << store::redactUrl(url) << ": " << error.what() << "\n";
    return 1;
  }
  return 0;
}

int AuditTrail::start(const http::ServerOptions& options, const AuditSettings& settings) {
  if (!options.database_url) {
    log::warn("no --database-url: requests are not audited");
    return 0;
  }
  if (const int code = prepareDatabase(*options.database_url, settings); code != 0) return code;
  audit::WriterOptions writer_options;
  writer_options.database_url = *options.database_url;
  writer_options.spool_path = resolveSpoolPath(settings.spool_path);
  writer_options.journal = settings.journal;
  // The gateway (and its metrics) is made after the writer: batches written before it exists
  // are not observed.
  writer_options.on_batch = [this](size_t rows, double) {
    if (auto* histogram = batch_rows_.load()) histogram->observe(static_cast<double>(rows));
  };
  writer_options.on_committed = [this](std::vector<std::string> lines) {
    if (const auto sink = committed_.load()) (*sink)(std::move(lines));
  };
  writer_ = std::make_unique<audit::Writer>(writer_options);
  try {
    writer_->start();
  } catch (const std::exception& error) {
    std::cerr << "sluice: " << error.what() << "\n";
    return 1;
  }
  partition_keeper_ = std::make_unique<audit::PartitionKeeper>(
      audit::PartitionKeeperOptions{.database_url = *options.database_url, .retention_days = settings.retention_days});
  partition_keeper_->start();
  log::info("audit trail on", {{"spool", writer_options.spool_path}, {"retention_days", settings.retention_days}});
  return 0;
}

AuditTrail::Observation AuditTrail::observeIn(http::Gateway& gateway) {
  batch_rows_.store(&gateway.metrics().audit_batch_rows.with({}));
  if (writer_) {
    audit::Writer* writer = writer_.get();
    gateway.metrics().setAuditSource([writer] {
      const audit::WriterStats stats = writer->stats();
      metrics::AuditFigures figures;
      figures.queue_depth = stats.queue_depth;
      figures.rows_written = stats.rows_written;
      figures.rows_spooled = stats.rows_spooled;
      figures.rows_replayed = stats.rows_replayed;
      figures.batches = stats.batches;
      figures.spool_rows = stats.rows_spooled >= stats.rows_replayed ? stats.rows_spooled - stats.rows_replayed : 0;
      figures.spool_bytes = stats.spool_bytes;
      figures.database_available = stats.database_available;
      figures.journal_off = stats.journal_off;
      return figures;
    });
  }
  return Observation(batch_rows_);
}

void AuditTrail::stop() {
  if (partition_keeper_) partition_keeper_->stop();
  if (writer_) writer_->stop();  // the queue goes to PostgreSQL, or to the spool
}

}  // namespace sluice::boot
