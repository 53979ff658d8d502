#include "server/log/json_log.h"

#include "server/net/fiber.h"
#include "server/text/plain_run.h"
#include "server/text/utf8.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <climits>
#include <mutex>
#include <vector>
#include <thread>
#include <condition_variable>

namespace sluice::log {

namespace {

std::mutex& lineMutex() {
  static std::mutex mutex;
  return mutex;
}

void appendTimestamp(std::string& out) {
  const auto now = std::chrono::system_clock::now();
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  // Every line of a second shares "YYYY-MM-DDTHH:MM:SS.": formatted once per second and thread
  // (gmtime_r and snprintf cost about a microsecond, paid by every request's log line otherwise).
  thread_local std::time_t cached_second = -1;
  thread_local char prefix[32];
  thread_local size_t prefix_size = 0;
  if (seconds != cached_second) {
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    const int n = std::snprintf(prefix, sizeof prefix, "%04d-%02d-%02dT%02d:%02d:%02d.", utc.tm_year + 1900,
                                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
    prefix_size = n > 0 ? static_cast<size_t>(n) : 0;
    cached_second = seconds;
  }
  const int ms = static_cast<int>(millis % 1000);
  out.push_back('"');
  out.append(prefix, prefix_size);
  out.push_back(static_cast<char>('0' + ms / 100));
  out.push_back(static_cast<char>('0' + ms / 10 % 10));
  out.push_back(static_cast<char>('0' + ms % 10));
  out.append("Z\"");
}

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Debug: return "debug";
    case Level::Info: return "info";
    case Level::Warn: return "warn";
    case Level::Error: return "error";
  }
  return "info";
}

// Lines logged by the fibers of one worker are gathered (up to PIPE_BUF, so a chunk stays whole in
// a pipe like a single line does) and, when the worker has run all its fibers (net/fiber.h
// addIdleHook), handed to the log thread, which writes them. A worker never waits on stderr itself:
// a write to a file or a pipe can block for milliseconds (a journal commit, a slow reader), and
// every connection of the worker would wait with it.
thread_local std::string pending_lines;

void writeOut(const char* data, size_t size);

class LogThread {
 public:
  static LogThread& instance() {
    static LogThread* thread = new LogThread();  // never destroyed: flush() empties it at exit
    return *thread;
  }

  // Queues one chunk (whole lines, at most PIPE_BUF).
  void push(std::string chunk) {
    bool wake = false;
    {
      std::unique_lock lock(mutex_);
      if (queued_bytes_ + chunk.size() > kMaxQueuedBytes) {
        // The writer is far behind (stderr is blocked): wait with it rather than grow without end.
        lock.unlock();
        writeOut(chunk.data(), chunk.size());
        return;
      }
      queued_bytes_ += chunk.size();
      chunks_.push_back(std::move(chunk));
      wake = asleep_;
      asleep_ = false;
    }
    if (wake) ready_.notify_one();
  }

  // Writes everything queued so far before returning.
  void flush() {
    std::unique_lock lock(mutex_);
    drained_.wait_for(lock, std::chrono::seconds(5), [this] { return chunks_.empty() && !writing_; });
  }

 private:
  LogThread() { std::thread([this] { run(); }).detach(); }

  void run() {
    std::vector<std::string> taken;
    std::unique_lock lock(mutex_);
    for (;;) {
      if (chunks_.empty()) {
        drained_.notify_all();
        // Nothing queued: sleep until a push wakes us (no wake-ups while the gateway is idle).
        asleep_ = true;
        ready_.wait(lock, [this] { return !chunks_.empty(); });
        asleep_ = false;
      }
      taken.swap(chunks_);
      queued_bytes_ = 0;
      writing_ = true;
      lock.unlock();
      for (const std::string& chunk : taken) writeOut(chunk.data(), chunk.size());
      taken.clear();
      // Under load the lines of the next few milliseconds go out together, without a wake-up each.
      std::this_thread::sleep_for(kGather);
      lock.lock();
      writing_ = false;
    }
  }

  static constexpr size_t kMaxQueuedBytes = 8u << 20;
  static constexpr auto kGather = std::chrono::milliseconds(5);
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable drained_;
  std::vector<std::string> chunks_;
  size_t queued_bytes_ = 0;
  bool asleep_ = false;
  bool writing_ = false;
};

void flushPendingLines() {
  if (pending_lines.empty()) return;
  std::string chunk;
  chunk.swap(pending_lines);
  LogThread::instance().push(std::move(chunk));
}

void writeAll(const std::string& text) {
  if (text.size() <= PIPE_BUF && net::fiber::active()) {
    static const bool hooked = (net::fiber::addIdleHook(&flushPendingLines), true);
    (void)hooked;
    if (pending_lines.size() + text.size() > PIPE_BUF) flushPendingLines();
    if (pending_lines.capacity() < PIPE_BUF) pending_lines.reserve(PIPE_BUF);
    pending_lines += text;
    return;
  }
  writeOut(text.data(), text.size());
}

void writeOut(const char* data, size_t left) {
  // A line up to PIPE_BUF is one write(2), which the kernel keeps whole (a pipe) or in order (a
  // file): no lock, so request threads and fibers do not queue behind each other's log lines.
  if (left <= PIPE_BUF) {
    ssize_t n;
    do {
      n = ::write(STDERR_FILENO, data, left);
    } while (n < 0 && errno == EINTR);
    if (n < 0 || static_cast<size_t>(n) == left) return;
    data += n;
    left -= static_cast<size_t>(n);
  }
  std::lock_guard lock(lineMutex());
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // NOTE: nowhere to report a failing stderr
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

void appendJsonString(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the bytes still to copy unchanged
  size_t i = 0;
  const auto flush = [&](size_t end) { out.append(value.data() + run, end - run); };
  while (i < value.size()) {
    i = text::plainJsonRun(value, i);
    if (i == value.size()) break;
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      if (const size_t n = text::utf8SequenceLength(value, i); n > 0) {
        i += n;
        continue;
      }
      flush(i);
      out.append("\xEF\xBF\xBD");  // U+FFFD
      run = ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
    run = ++i;
  }
  flush(i);
  out.push_back('"');
}

Line::Line(Level level, std::string_view message) {
  text_.reserve(512);
  text_.append("{\"ts\":");
  appendTimestamp(text_);
  text_.append(",\"level\":\"");
  text_.append(levelName(level));
  text_.append("\",\"msg\":");
  appendJsonString(text_, message);
}

void Line::key(std::string_view name) {
  text_.push_back(',');
  appendJsonString(text_, name);
  text_.push_back(':');
}

Line& Line::field(std::string_view name, std::string_view value) {
  key(name);
  appendJsonString(text_, value);
  return *this;
}

Line& Line::field(std::string_view name, int64_t value) {
  key(name);
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  text_.append(buffer, result.ptr);
  return *this;
}

Line& Line::field(std::string_view name, double value) {
  key(name);
  if (!std::isfinite(value)) {
    text_.append("null");
    return *this;
  }
  char buffer[48];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 3);
  text_.append(buffer, result.ptr);
  return *this;
}

Line& Line::field(std::string_view name, bool value) {
  key(name);
  text_.append(value ? "true" : "false");
  return *this;
}

Line& Line::field(std::string_view name, const nlohmann::json& value) {
  key(name);
  text_.append(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return *this;
}

std::string Line::text() const { return text_ + "}\n"; }

void Line::write() const { writeAll(text()); }

void flush() { LogThread::instance().flush(); }

void write(Level level, std::string_view message, const nlohmann::json& fields) {
  Line line(level, message);
  if (fields.is_object()) {
    for (const auto& [name, value] : fields.items()) {
      // Fields named like the fixed ones replace nothing: the fixed ones come first.
      if (name == "ts" || name == "level" || name == "msg") continue;
      line.field(name, value);
    }
  }
  line.write();
}

}  // namespace sluice::log
