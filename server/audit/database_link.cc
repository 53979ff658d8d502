#include "server/audit/database_link.h"

#include <algorithm>
#include <iostream>

#include "server/audit/fields.h"
#include "server/audit/spool.h"
#include "server/log/json_log.h"
#include "server/store/audit_store.h"
#include "server/store/database.h"

namespace sluice::audit {

namespace {

// True when PostgreSQL refused the rows for their content (SQLSTATE class 22 data exception,
// 23 integrity violation): those are set aside one by one. Any other failure (connection,
// timeout, shutdown, a missing table or column) is the database's, not the rows': they are kept
// in the spool and tried again later.
bool isRowProblem(const pqxx::sql_error& error) {
  const std::string& state = error.sqlstate();
  return state.starts_with("22") || state.starts_with("23");
}

std::string joinArray(const std::vector<std::string>& lines) {
  size_t total = 2;
  for (const auto& line : lines) total += line.size() + 1;
  std::string array;
  array.reserve(total);
  array += '[';
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) array += ',';
    array += lines[i];
  }
  array += ']';
  return array;
}

}  // namespace

DatabaseLink::DatabaseLink(const WriterOptions& options)
    : database_url_(options.database_url),
      spool_path_(options.spool_path),
      write_timeout_ms_(options.write_timeout_ms),
      retry_interval_ms_(options.retry_interval_ms),
      on_batch_(options.on_batch) {}

const char* DatabaseLink::name(State state) {
  switch (state) {
    case State::Unknown: return "unknown";
    case State::Available: return "available";
    case State::Unavailable: return "unavailable";
  }
  return "?";
}

void DatabaseLink::changeState(State next, const std::string& reason) {
  if (next == State::Unavailable) {
    connection_.reset();
    next_retry_ = SteadyClock::now() + std::chrono::milliseconds(retry_interval_ms_);
  }
  if (next != state_) {
    if (next == State::Available) {
      log::info("audit: PostgreSQL available", {{"from", name(state_)}});
    } else {
      log::warn("audit: PostgreSQL unavailable; rows go to the spool",
                {{"from", name(state_)}, {"reason", reason}, {"spool", spool_path_}});
    }
    state_ = next;
  }
  available_.store(next == State::Available);
}

pqxx::connection* DatabaseLink::ensureConnected() {
  if (connection_ && connection_->is_open()) return connection_.get();
  if (database_url_.empty()) return nullptr;
  if (state_ == State::Unavailable && SteadyClock::now() < next_retry_) return nullptr;
  try {
    connection_ = store::connect(database_url_);
    pqxx::nontransaction setup(*connection_);
    setup.exec("SET statement_timeout = " + std::to_string(write_timeout_ms_));
    return connection_.get();
  } catch (const std::exception& error) {
    changeState(State::Unavailable, error.what());
    return nullptr;
  }
}

void DatabaseLink::close() { connection_.reset(); }

bool DatabaseLink::write(std::vector<QueuedRow>& rows) {
  const bool copyable = std::all_of(rows.begin(), rows.end(), [](const QueuedRow& row) { return !row.copy.empty(); });
  if (copyable) {
    pqxx::connection* db = ensureConnected();
    if (!db) return false;
    const auto started_at = SteadyClock::now();
    std::string text;
    size_t total = 0;
    for (const auto& row : rows) total += row.copy.size();
    text.reserve(total);
    std::vector<store::RollupFacts> facts;
    facts.reserve(rows.size());
    for (auto& row : rows) {
      text += row.copy;
      facts.push_back(std::move(row.facts));
    }
    try {
      store::copyAuditRows(*db, auditColumns(), text, facts);
      wrote(rows.size(), started_at);
      return true;
    } catch (const pqxx::sql_error& error) {
      if (!isRowProblem(error)) {
        changeState(State::Unavailable, error.what());
        return false;
      }
      // A row already there or one PostgreSQL refuses: the insert that skips the first and
      // sets the second aside decides (nothing of the COPY was committed).
    } catch (const std::exception& error) {  // broken_connection, in_doubt_error, …
      changeState(State::Unavailable, error.what());
      return false;
    }
  }
  std::vector<std::string> lines;
  lines.reserve(rows.size());
  for (const auto& row : rows) lines.push_back(rowJson(row));
  return writeJson(lines);
}

void DatabaseLink::wrote(size_t rows, SteadyClock::time_point started_at) {
  const double elapsed = std::chrono::duration<double, std::milli>(SteadyClock::now() - started_at).count();
  last_flush_ms_.store(elapsed);
  last_batch_size_.store(rows);
  batches_.fetch_add(1);
  rows_written_.fetch_add(rows);
  if (on_batch_) on_batch_(rows, elapsed / 1000.0);
  changeState(State::Available, "");
}

bool DatabaseLink::writeJson(const std::vector<std::string>& lines) {
  pqxx::connection* db = ensureConnected();
  if (!db) return false;
  const auto started_at = SteadyClock::now();
  try {
    store::insertAuditRows(*db, auditColumns(), joinArray(lines));
  } catch (const pqxx::sql_error& error) {
    if (!isRowProblem(error)) {
      changeState(State::Unavailable, error.what());
      return false;
    }
    if (!writeOneByOne(*db, lines, error.what())) return false;
  } catch (const std::exception& error) {  // broken_connection, in_doubt_error, …
    changeState(State::Unavailable, error.what());
    return false;
  }
  wrote(lines.size(), started_at);
  return true;
}

bool DatabaseLink::writeOneByOne(pqxx::connection& db, const std::vector<std::string>& lines,
                                 const std::string& first_error) {
  std::vector<std::string> rejected;
  std::string reason = first_error;
  for (const auto& line : lines) {
    try {
      store::insertAuditRows(db, auditColumns(), "[" + line + "]");
    } catch (const pqxx::sql_error& error) {
      if (!isRowProblem(error)) {
        changeState(State::Unavailable, error.what());
        return false;
      }
      rejected.push_back(line);
      reason = error.what();
    } catch (const std::exception& error) {
      changeState(State::Unavailable, error.what());
      return false;
    }
  }
  if (rejected.empty()) return true;
  log::error("audit: PostgreSQL rejected rows; kept in the rejected file",
             {{"rows", rejected.size()}, {"error", reason}, {"path", spool_path_ + ".rejected"}});
  std::string text;
  for (const auto& line : rejected) text += line + "\n";
  try {
    std::unique_ptr<Spool> sink = Spool::open(spool_path_ + ".rejected");
    sink->append(text);
  } catch (const std::exception& error) {
    log::error("audit: cannot keep rejected rows", {{"error", error.what()}});
    std::cerr << text;
  }
  return true;
}

void DatabaseLink::addStats(WriterStats& stats) const {
  stats.rows_written = rows_written_.load();
  stats.batches = batches_.load();
  stats.last_batch_size = last_batch_size_.load();
  stats.last_flush_ms = last_flush_ms_.load();
  stats.database_available = available_.load();
}

}  // namespace sluice::audit
