#pragma once
// The audit trail's background writer: a bounded in-memory queue, a thread that writes batches
// into PostgreSQL (`ai_requests`, multi-row INSERT … ON CONFLICT (id, created_at) DO NOTHING),
// and an append-only spool file for the rows PostgreSQL cannot take right now.
//
// Guarantees:
//  - submit() never blocks on I/O: it takes a mutex and pushes. When the queue is full the row is
//    appended to the spool file on the caller's thread (one write + fsync); it is never dropped.
//  - When a batch cannot be written (PostgreSQL unreachable, an error, or slower than
//    `write_timeout_ms`), the batch goes to the spool (one JSON line per row, fsync per batch).
//  - The spool is replayed in order when PostgreSQL answers again and at start(); inserts are
//    idempotent on (id, created_at), so a replayed row never duplicates; the file is then truncated.
//  - A crash loses at most the rows in memory (the queue and the batch being written).
//  - Rows PostgreSQL refuses for their content (SQLSTATE class 22 or 23; a well-formed Record
//    never is) are appended to <spool_path>.rejected and logged, so they cannot block the rest.
//
// Thread-safe: submit() and stats() from any thread; start() and stop() from one owner thread.

#include <chrono>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/audit/record.h"
#include "server/audit/sink.h"

namespace sluice::audit {

struct WriterOptions {
  std::string database_url;        // empty: every row goes to the spool
  std::string spool_path;          // required; created if missing
  size_t queue_capacity = 10000;
  // Rows per batch: under load a batch fills before the interval ends, and fewer, larger
  // transactions cost PostgreSQL less per row (one COPY, four rollup upserts and one commit each).
  size_t batch_size = 2000;
  int flush_interval_ms = 200;     // a partial batch waits at most this long
  int write_timeout_ms = 5000;     // a batch slower than this goes to the spool (statement_timeout)
  int retry_interval_ms = 1000;    // how often an unreachable PostgreSQL is tried again
  // Called on the writer's thread after every batch written into PostgreSQL (rows, seconds);
  // must be quick and must not throw. For metrics (gateway_audit_batch_rows).
  std::function<void(size_t rows, double seconds)> on_batch;
  // Called on the writer's thread with the rows just committed to PostgreSQL (COPY lines or JSON
  // lines: rowJsonOfLine() in record_json.h reads either), replayed spool rows included; for the
  // OTLP audit logs. Must be quick (hand them to a queue) and must not throw. Unset: nothing kept.
  std::function<void(std::vector<std::string> lines)> on_committed;
  // Keep <spool>.journal so that a process killed outright still leaves every row (journal.h).
  bool journal = true;
};

struct WriterStats {
  size_t queue_depth = 0;
  uint64_t rows_submitted = 0;
  uint64_t rows_written = 0;       // into PostgreSQL, replayed spool rows included
  uint64_t rows_spooled = 0;       // appended to the spool (queue full or PostgreSQL unavailable)
  uint64_t rows_replayed = 0;      // moved from the spool into PostgreSQL
  uint64_t batches = 0;            // batches written into PostgreSQL
  size_t last_batch_size = 0;
  double last_flush_ms = 0;        // duration of the last PostgreSQL batch write
  uint64_t spool_bytes = 0;        // current size of the spool file
  bool database_available = false; // the last attempt to write reached PostgreSQL
  // The journal was asked for but is off: its volume is full (journal.h) or its file could not be
  // opened. Rows still reach PostgreSQL or the spool; a process killed outright meanwhile loses
  // its unfinished requests' rows.
  bool journal_off = false;
};

class Writer : public Sink {
 public:
  explicit Writer(WriterOptions options);
  ~Writer();  // stop()
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Starts the background thread; it replays any spool left by a previous run first.
  // Throws std::runtime_error when the spool file cannot be opened.
  void start();

  // Hands one row over. Never throws; never drops the row (see above). May be called before
  // start() and after stop(): such rows go to the spool.
  void submit(Record record) noexcept override;
  // Journaled (journal.h) when the writer keeps a journal: a killed process's requests still
  // leave their rows at the next start.
  void begin(const Record& so_far) noexcept override;
  void abandon(const std::string& id) noexcept override;

  // Waits until every row submitted before the call is in PostgreSQL or the spool, up to
  // `timeout`. True when that happened.
  bool flush(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // Drains the queue (to PostgreSQL, or to the spool when it is unavailable), then stops the
  // thread. Idempotent.
  void stop();

  WriterStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sluice::audit
