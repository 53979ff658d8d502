#pragma once
// Database boot: the audit trail's schema (migrations), its writer (which replays any spool a
// previous run left) and the partition keeper, and their hooks into the gateway's metrics.
// Used by main's thread only.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/audit/partition_keeper.h"
#include "server/audit/writer.h"
#include "server/boot/settings.h"
#include "server/http/gateway.h"
#include "server/metrics/registry.h"

namespace sluice::boot {

// Applies pending migrations (or, with --no-migrate, refuses to start when some are pending).
// Returns the exit code to stop with (1: database unreachable or migrations pending, 2: a bad
// --migrations directory; the reason printed to stderr), 0 to go on.
int prepareDatabase(const std::string& url, const AuditSettings& settings);

class AuditTrail {
 public:
  AuditTrail() = default;
  // Stops the writer and the keeper if stop() did not.
  ~AuditTrail() = default;
  AuditTrail(const AuditTrail&) = delete;
  AuditTrail& operator=(const AuditTrail&) = delete;

  // With a database URL: prepares the database, starts the writer and the partition keeper and
  // logs "audit trail on"; without one, logs that requests are not audited. Returns the exit code
  // to stop with (see prepareDatabase; 1 when the writer cannot start), 0 to go on.
  int start(const http::ServerOptions& options, const AuditSettings& settings);

  // nullptr without a database.
  audit::Writer* writer() const { return writer_.get(); }

  // Makes the writer's batches and figures visible in `gateway`'s metrics until the returned
  // guard goes; the guard must go before the gateway (batches written before, or after, are not
  // observed).
  class Observation {
   public:
    explicit Observation(std::atomic<metrics::Histogram*>& hook) : hook_(hook) {}
    ~Observation() { hook_.store(nullptr); }
    Observation(const Observation&) = delete;
    Observation& operator=(const Observation&) = delete;

   private:
    std::atomic<metrics::Histogram*>& hook_;
  };
  [[nodiscard]] Observation observeIn(http::Gateway& gateway);

  // Rows committed to PostgreSQL (COPY or JSON lines, audit::rowJsonOfLine) are handed to `sink`
  // on the writer's thread, until this is called again with nullptr (a call under way keeps its
  // sink alive until it returns).
  using CommittedRows = std::function<void(std::vector<std::string> lines)>;
  void onCommitted(std::shared_ptr<const CommittedRows> sink) { committed_.store(std::move(sink)); }

  // The keeper, then the writer: its queue goes to PostgreSQL, or to the spool.
  void stop();

 private:
  std::atomic<metrics::Histogram*> batch_rows_{nullptr};  // before writer_: the writer calls it
  std::atomic<std::shared_ptr<const CommittedRows>> committed_;  // likewise
  std::unique_ptr<audit::Writer> writer_;
  std::unique_ptr<audit::PartitionKeeper> partition_keeper_;
};

}  // namespace sluice::boot
