#pragma once
// The audit writer's link to PostgreSQL: one connection, whether PostgreSQL is available (an
// explicit state with one function that changes it, and a retry time when it is not), and the
// writing of one batch: COPY for live rows, the insert that skips rows already present for the
// rest, and rows PostgreSQL refuses for their content set aside in <spool_path>.rejected.
//
// Used by the writer's thread alone; stats() may be called from any thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "server/audit/queued_row.h"
#include "server/audit/writer.h"

namespace sluice::audit {

class DatabaseLink {
 public:
  // Keeps the options it needs: database_url (empty: never available), write_timeout_ms (the
  // session's statement_timeout), retry_interval_ms, on_batch and spool_path.
  explicit DatabaseLink(const WriterOptions& options);
  DatabaseLink(const DatabaseLink&) = delete;
  DatabaseLink& operator=(const DatabaseLink&) = delete;

  // A connection, or null when PostgreSQL is unavailable and it is not yet time to try again
  // (a failed connect makes it unavailable). Never throws.
  pqxx::connection* ensureConnected();

  // Writes `rows`: with COPY when they all have a COPY line (the live path), else, or when COPY
  // finds a row already there or one PostgreSQL refuses, as writeJson() does. True when every
  // row is in PostgreSQL; false (PostgreSQL now unavailable) when the caller must spool them.
  // The rows' rollup facts are moved out on the COPY path. Throws only std::bad_alloc.
  bool write(std::vector<QueuedRow>& rows);

  // Writes `lines` (row JSON). True when every row is there (new, already present, or set aside
  // as rejected); false on a database-wide failure (the caller spools them).
  bool writeJson(const std::vector<std::string>& lines);

  // Closes the connection (the state stays).
  void close();

  // Adds rows_written, batches, last_batch_size, last_flush_ms and database_available.
  void addStats(WriterStats& stats) const;

 private:
  // Where the batches go. Exactly one function (changeState) moves between them.
  enum class State {
    Unknown,      // not tried yet
    Available,    // the last write reached PostgreSQL
    Unavailable,  // unreachable, failing or too slow: batches go to the spool until the next retry
  };
  using SteadyClock = std::chrono::steady_clock;

  static const char* name(State state);
  void changeState(State next, const std::string& reason);
  void wrote(size_t rows, SteadyClock::time_point started_at);
  bool writeOneByOne(pqxx::connection& db, const std::vector<std::string>& lines, const std::string& first_error);

  const std::string database_url_;
  const std::string spool_path_;
  const int write_timeout_ms_;
  const int retry_interval_ms_;
  const std::function<void(size_t rows, double seconds)> on_batch_;

  std::unique_ptr<pqxx::connection> connection_;
  State state_ = State::Unknown;
  SteadyClock::time_point next_retry_{};

  std::atomic<uint64_t> rows_written_{0};
  std::atomic<uint64_t> batches_{0};
  std::atomic<size_t> last_batch_size_{0};
  std::atomic<double> last_flush_ms_{0};
  std::atomic<bool> available_{false};
};

}  // namespace sluice::audit
