#include "server/audit/writer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "server/audit/database_link.h"
#include "server/audit/journal.h"
#include "server/audit/queued_row.h"
#include "server/audit/record_json.h"
#include "server/audit/spool.h"
#include "server/net/fiber.h"
#include "server/log/json_log.h"

namespace sluice::audit {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string fallbackId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char text[40];
  std::snprintf(text, sizeof text, "unidentified-%016llx", static_cast<unsigned long long>(random()));
  return text;
}

// The journal line that keeps a queued row until it is in PostgreSQL or the spool.
std::string journalLine(const QueuedRow& row) {
  return row.copy.empty() ? Journal::endLine(row.json) : Journal::endCopyLine(row.copy);
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

}  // namespace

struct Writer::State {
  explicit State(WriterOptions options_in) : options(std::move(options_in)), database(options) {}

  WriterOptions options;

  // The queue and the thread's lifecycle.
  mutable std::mutex mutex;
  std::condition_variable wake;       // the writer thread waits on it
  std::condition_variable progressed; // flush() waits on it
  std::deque<QueuedRow> queue;  // rows already serialised
  bool started = false;
  bool stopping = false;
  uint64_t flush_waiters = 0;
  uint64_t enqueued = 0;   // rows ever pushed to the queue
  uint64_t processed = 0;  // of those, rows now in PostgreSQL or the spool
  std::thread thread;

  DatabaseLink database;  // used by the writer thread after start()

  mutable std::mutex spool_mutex;  // guards opening the spool, not its use (Spool is thread-safe)
  std::unique_ptr<Spool> spool;

  // The journal (null when off). journal_mutex is taken before `mutex` when both are: a row is
  // journaled and queued as one step, so a compaction never misses it.
  std::unique_ptr<Journal> journal;
  std::mutex journal_mutex;
  std::unordered_map<std::string, std::string> open_begins;  // id -> its begin line
  SteadyClock::time_point compacted_at{};

  // Rewrites the journal with what is still open: begun requests and queued rows. A journal the
  // volume turned off is tried again here (journal.h): on again once there is room.
  void compactJournal() {
    if (!journal) return;
    const bool was_active = journal->active();
    try {
      std::lock_guard journal_lock(journal_mutex);
      std::vector<std::string> lines;
      lines.reserve(open_begins.size());
      for (const auto& [id, line] : open_begins) lines.push_back(line);
      {
        std::lock_guard lock(mutex);
        for (const auto& row : queue) lines.push_back(journalLine(row));
      }
      journal->rewrite(lines);
    } catch (const std::exception& error) {
      // Off: logged once when it turned off, not at every try.
      if (was_active) log::warn("audit: cannot compact the journal", {{"error", error.what()}});
    }
    compacted_at = SteadyClock::now();
  }

  bool compactionDue() const {
    if (!journal) return false;
    if (SteadyClock::now() - compacted_at > std::chrono::seconds(2)) return true;
    return journal->active() && journal->size() > Journal::kGrowth / 2;
  }

  std::atomic<bool> journal_failed{false};  // configured, but its file could not be opened
  std::atomic<uint64_t> rows_submitted{0};
  std::atomic<uint64_t> rows_spooled{0};
  std::atomic<uint64_t> rows_replayed{0};

  Spool* openSpool() {
    std::lock_guard lock(spool_mutex);
    if (!spool) spool = Spool::open(options.spool_path);
    return spool.get();
  }

  static std::vector<std::string> jsonOf(std::vector<QueuedRow> rows) {
    std::vector<std::string> lines;
    lines.reserve(rows.size());
    for (auto& row : rows) lines.push_back(rowJson(std::move(row)));
    return lines;
  }

  static std::vector<std::string> committedLines(std::vector<QueuedRow> rows) {
    std::vector<std::string> lines;
    lines.reserve(rows.size());
    for (auto& row : rows) lines.push_back(row.copy.empty() ? std::move(row.json) : std::move(row.copy));
    return lines;
  }

  void spoolLines(const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    const std::string text = joinLines(lines);
    try {
      openSpool()->append(text);
      rows_spooled.fetch_add(lines.size());
    } catch (const std::exception& error) {
      // NOTE: the last resort: the rows on stderr (collected by the log pipeline) beat losing them.
      log::error("audit: cannot write the spool; rows follow on stderr", {{"error", error.what()}});
      std::cerr << text << std::flush;
    }
  }

  // Replays the spool into PostgreSQL in file order. True when the spool is empty afterwards.
  bool replay() {
    Spool* file = openSpool();
    if (file->size() == 0) return true;
    uint64_t offset = 0;
    bool complete = true;
    for (;;) {
      Spool::Chunk chunk;
      try {
        chunk = file->read(offset, std::max<size_t>(options.batch_size, 1000));
      } catch (const std::exception& error) {
        log::error("audit: cannot read the spool", {{"error", error.what()}});
        complete = false;
        break;
      }
      if (chunk.lines.empty()) break;
      if (!database.writeJson(chunk.lines)) {
        complete = false;
        break;
      }
      rows_replayed.fetch_add(chunk.lines.size());
      if (options.on_committed) options.on_committed(chunk.lines);
      offset = chunk.next_offset;
    }
    if (offset > 0) {
      try {
        file->discardPrefix(offset);
        log::info("audit: replayed spooled rows", {{"bytes", offset}, {"complete", complete}});
      } catch (const std::exception& error) {
        // NOTE: the rows stay in the spool and are replayed again later; inserts are idempotent.
        log::error("audit: cannot shorten the spool", {{"error", error.what()}});
        return false;
      }
    }
    return complete && file->size() == 0;
  }

  void run() {
    try {
      const size_t adopted = openSpool()->adoptOrphans();
      if (adopted > 0) log::info("audit: orphaned spool rows will be replayed", {{"rows", adopted}});
    } catch (const std::exception& error) {
      log::error("audit: cannot open the spool", {{"error", error.what()}});
    }
    for (;;) {
      std::vector<QueuedRow> lines;
      bool last = false;
      {
        std::unique_lock lock(mutex);
        wake.wait_for(lock, std::chrono::milliseconds(options.flush_interval_ms), [&] {
          return stopping || flush_waiters > 0 || queue.size() >= options.batch_size;
        });
        const size_t take = std::min(queue.size(), std::max<size_t>(options.batch_size, 1));
        lines.reserve(take);
        for (size_t i = 0; i < take; ++i) {
          lines.push_back(std::move(queue.front()));
          queue.pop_front();
        }
        last = stopping && queue.empty();
      }
      // Spooled rows go first, so rows reach PostgreSQL in the order they were submitted.
      bool spool_empty = true;
      try {
        spool_empty = openSpool()->size() == 0 || (database.ensureConnected() != nullptr && replay());
      } catch (const std::exception& error) {
        log::error("audit: spool unavailable", {{"error", error.what()}});
      }
      const size_t taken = lines.size();
      if (!lines.empty() && !(spool_empty && database.write(lines))) {
        spoolLines(jsonOf(std::move(lines)));
      } else if (!lines.empty() && options.on_committed) {
        options.on_committed(committedLines(std::move(lines)));
      }
      {
        std::lock_guard lock(mutex);
        processed += taken;
      }
      progressed.notify_all();
      if (compactionDue()) compactJournal();
      if (last) break;
    }
    compactJournal();
    database.close();
  }
};

Writer::Writer(WriterOptions options) : state_(std::make_unique<State>(std::move(options))) {}

Writer::~Writer() { stop(); }

void Writer::start() {
  std::lock_guard lock(state_->mutex);
  if (state_->started) return;
  Spool* spool = state_->openSpool();  // throws when the spool cannot be opened
  if (state_->options.journal && !state_->journal) {
    try {
      state_->journal = std::make_unique<Journal>(spool->path() + ".journal");
      // What a process killed outright left: its rows, and its unfinished requests as interrupted.
      const Journal::Loaded left = state_->journal->load();
      for (const auto& row : left.ended) state_->queue.push_back(QueuedRow{row, {}, {}});
      for (const auto& row : left.interrupted) state_->queue.push_back(QueuedRow{row, {}, {}});
      state_->enqueued += left.ended.size() + left.interrupted.size();
      if (!left.ended.empty() || !left.interrupted.empty()) {
        log::warn("audit: rows recovered from the journal of a process that did not stop",
                  {{"rows", left.ended.size()}, {"interrupted", left.interrupted.size()},
                   {"journal", state_->journal->path()}});
      }
    } catch (const std::exception& error) {
      log::error("audit: no journal; a killed process would lose its in-memory rows", {{"error", error.what()}});
      state_->journal.reset();
      state_->journal_failed = true;
    }
  }
  if (state_->journal) {
    std::vector<std::string> lines;
    for (const auto& row : state_->queue) lines.push_back(journalLine(row));
    try {
      state_->journal->rewrite(lines);
    } catch (const std::exception& error) {
      // A full volume: the journal stays off (journal.h) and keeps what it held; the recovered rows
      // are queued all the same.
      log::warn("audit: the journal keeps its old lines until its volume has room", {{"error", error.what()}});
    }
  }
  state_->started = true;
  state_->thread = std::thread([state = state_.get()] { state->run(); });
}

void Writer::submit(Record record) noexcept {
  State& state = *state_;
  try {
    if (record.id.empty()) record.id = fallbackId();
    if (record.created_at == TimePoint{}) record.created_at = Clock::now();
    state.rows_submitted.fetch_add(1);
    // NOTE: serialised here, on the request's thread, once: the same COPY line goes into the journal
    // and to PostgreSQL, and the writer thread does nothing but I/O.
    std::string copy = toCopyLine(record);
    std::unique_lock<std::mutex> journal_lock;
    if (state.journal) {
      journal_lock = std::unique_lock(state.journal_mutex);
      state.open_begins.erase(record.id);
      state.journal->appendEndCopy(copy);
    }
    {
      std::lock_guard lock(state.mutex);
      const bool accepting = !state.stopping && (!state.started || state.thread.joinable());
      if (accepting && state.queue.size() < state.options.queue_capacity) {
        state.queue.push_back(QueuedRow{{}, std::move(copy), rollupFacts(record)});
        ++state.enqueued;
        if (state.queue.size() == state.options.batch_size) state.wake.notify_one();
        return;
      }
    }
    // Full (or stopped): the row goes to disk rather than being dropped. On a fiber the write and
    // its fsync run on a helper thread, so the loop's other connections are not held up. Not under
    // the journal's lock: a spool busy replaying would hold up every request's journaling. (The
    // row stays in the journal until the next compaction; replaying it twice inserts it once.)
    if (journal_lock.owns_lock()) journal_lock.unlock();
    std::string line = toRowJson(record);
    net::fiber::blocking([&] { state.spoolLines({std::move(line)}); });
  } catch (const std::exception& error) {
    log::error("audit: a row could not be recorded", {{"id", record.id}, {"error", error.what()}});
  }
}

void Writer::begin(const Record& so_far) noexcept {
  State& state = *state_;
  if (!state.journal) return;
  try {
    std::string line(Journal::kBeginCopy);
    appendInterruptedCopyLine(line, so_far);
    std::lock_guard lock(state.journal_mutex);
    state.journal->appendLine(line);
    state.open_begins[so_far.id] = std::move(line);
  } catch (const std::exception& error) {
    log::warn("audit: a request's start could not be journaled", {{"id", so_far.id}, {"error", error.what()}});
  }
}

void Writer::abandon(const std::string& id) noexcept {
  State& state = *state_;
  if (!state.journal) return;
  try {
    std::lock_guard lock(state.journal_mutex);
    state.open_begins.erase(id);
    // An end without a row: a replay does not take the begin for an interrupted request.
    state.journal->appendEnd(nlohmann::json{{"id", id}, {"abandoned", true}}.dump());
  } catch (const std::exception&) {
  }
}

bool Writer::flush(std::chrono::milliseconds timeout) {
  State& state = *state_;
  std::unique_lock lock(state.mutex);
  if (!state.started || !state.thread.joinable()) return state.queue.empty();
  const uint64_t target = state.enqueued;
  ++state.flush_waiters;
  state.wake.notify_one();
  const bool done = state.progressed.wait_for(lock, timeout, [&] { return state.processed >= target; });
  --state.flush_waiters;
  return done;
}

void Writer::stop() {
  State& state = *state_;
  {
    std::lock_guard lock(state.mutex);
    if (!state.started || state.stopping) {
      if (!state.started && !state.queue.empty()) {
        // Never started: what was queued goes to the spool.
        std::vector<QueuedRow> rows(std::make_move_iterator(state.queue.begin()),
                                    std::make_move_iterator(state.queue.end()));
        state.queue.clear();
        state.spoolLines(State::jsonOf(std::move(rows)));
      }
      return;
    }
    state.stopping = true;
  }
  state.wake.notify_one();
  if (state.thread.joinable()) state.thread.join();
}

WriterStats Writer::stats() const {
  const State& state = *state_;
  WriterStats stats;
  {
    std::lock_guard lock(state.mutex);
    stats.queue_depth = state.queue.size();
  }
  stats.rows_submitted = state.rows_submitted.load();
  stats.rows_spooled = state.rows_spooled.load();
  stats.rows_replayed = state.rows_replayed.load();
  state.database.addStats(stats);
  {
    std::lock_guard lock(state.spool_mutex);
    stats.spool_bytes = state.spool ? state.spool->size() : 0;
  }
  {
    std::lock_guard lock(state.mutex);  // start() sets the journal under it
    stats.journal_off = state.journal_failed.load() || (state.journal && !state.journal->active());
  }
  return stats;
}

}  // namespace sluice::audit
