#include "bench/loadgen/load_thread.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/loadgen/response_parser.h"

namespace sluice::bench {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kSecond = 1'000'000'000;

std::string buildRequest(const Options& options) {
  std::string request = (options.body.empty() ? "GET " : "POST ") + options.path + " HTTP/1.1\r\n";
  request += "Host: " + options.host + ":" + std::to_string(options.port) + "\r\n";
  for (const auto& header : options.headers) request += header + "\r\n";
  if (!options.body.empty()) {
    request += "Content-Type: application/json\r\n";
    request += "Content-Length: " + std::to_string(options.body.size()) + "\r\n";
  }
  request += "\r\n";
  request += options.body;
  return request;
}

}  // namespace

struct LoadThread::Connection {
  enum class State { Closed, Connecting, Idle, Busy };

  Connection() : parser([this](std::string_view body) { onBody(body); }) {}

  void onBody(std::string_view body);

  int fd = -1;
  State state = State::Closed;
  bool want_write = false;
  size_t written = 0;
  ResponseParser parser;
  int64_t start = 0;        // scheduled (open loop) or sent (closed loop)
  int64_t first_token = 0;
  int64_t last_token = 0;
  int tokens = 0;
  int late = 0;
  std::string carry;
  int64_t read_at = 0;      // when the bytes being parsed were read
  int64_t retry_at = 0;     // earliest reconnect after a failure
  Stats* stats = nullptr;
  const Options* options = nullptr;
  bool recorded = false;
};

void LoadThread::Connection::onBody(std::string_view body) {
  const std::string& marker = options->stream_marker;
  if (marker.empty()) return;
  carry.append(body);
  size_t at = 0;
  while ((at = carry.find(marker, at)) != std::string::npos) {
    at += marker.size();
    if (tokens == 0) {
      first_token = read_at;
      if (recorded) stats->ttft.record(read_at - start);
    } else {
      const int64_t gap = read_at - last_token;
      if (recorded) {
        stats->token_gap.record(gap);
        if (gap > static_cast<int64_t>(options->pace_ms + options->late_ms) * kMs) ++late;
      }
    }
    last_token = read_at;
    ++tokens;
  }
  if (carry.size() >= marker.size()) carry.erase(0, carry.size() - (marker.size() - 1));
}

LoadThread::LoadThread(const Options& options, int index, std::barrier<>& start_line)
    : options_(options), index_(index), start_line_(start_line) {}

Stats LoadThread::run() {
  Stats stats;
  const std::string request = buildRequest(options_);
  const int count = options_.connections / options_.threads + (index_ < options_.connections % options_.threads ? 1 : 0);
  const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<std::unique_ptr<Connection>> connections;
  for (int i = 0; i < count; ++i) {
    auto connection = std::make_unique<Connection>();
    connection->stats = &stats;
    connection->options = &options_;
    connections.push_back(std::move(connection));
  }

  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(options_.port));
  ::inet_pton(AF_INET, options_.host.c_str(), &address.sin_addr);

  int64_t warm_end = 0;
  int64_t end = INT64_MAX;
  bool running = false;  // past the start line: errors are counted
  auto inWindow = [&](int64_t start) { return start >= warm_end && start < end; };

  auto setEvents = [&](Connection& c) {
    epoll_event event{};
    event.events = static_cast<uint32_t>(EPOLLIN | EPOLLRDHUP) | (c.want_write || c.state == Connection::State::Connecting ? static_cast<uint32_t>(EPOLLOUT) : 0u);
    event.data.ptr = &c;
    ::epoll_ctl(epoll, EPOLL_CTL_MOD, c.fd, &event);
  };
  auto open = [&](Connection& c) {
    c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c.state = Connection::State::Connecting;
    c.want_write = false;
    epoll_event event{};
    event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
    event.data.ptr = &c;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, c.fd, &event);
    if (::connect(c.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 && errno != EINPROGRESS) {
      if (running) ++stats.connect_errors;
      ::close(c.fd);
      c.fd = -1;
      c.state = Connection::State::Closed;
      c.retry_at = nowNs() + 10 * kMs;
    }
  };
  auto close = [&](Connection& c, int64_t now) {
    if (c.fd >= 0) ::close(c.fd);  // also leaves the epoll set
    c.fd = -1;
    c.state = Connection::State::Closed;
    c.retry_at = now;
  };

  std::vector<Connection*> idle;
  std::deque<int64_t> backlog;

  auto send = [&](Connection& c, int64_t start) {
    c.state = Connection::State::Busy;
    c.start = start;
    c.recorded = inWindow(start);
    c.written = 0;
    c.tokens = 0;
    c.late = 0;
    c.carry.clear();
    c.parser.reset();
    const ssize_t n = ::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) {
      if (c.recorded) ++stats.read_errors;
      close(c, nowNs());
      return;
    }
    c.written = n < 0 ? 0 : static_cast<size_t>(n);
    if (c.written < request.size()) {
      c.want_write = true;
      setEvents(c);
    }
  };

  // Ends the current request; `failure` when it did not complete.
  auto finish = [&](Connection& c, int64_t now, bool complete) {
    if (complete) ++stats.completed_all;
    if (c.recorded) {
      if (complete) {
        ++stats.completed;
        const int status = c.parser.status();
        ++stats.statuses[status];
        stats.body_bytes += static_cast<int64_t>(c.parser.bodyBytes());
        stats.latency.record(now - c.start);
        if (status >= 200 && status < 300) {
          ++stats.ok;
          if (!options_.stream_marker.empty()) {
            ++stats.streams;
            stats.frames += c.tokens;
            stats.late_frames += c.late;
            if (c.tokens < options_.expect_tokens) ++stats.dropped_streams;
          }
        }
      } else {
        ++stats.read_errors;
      }
    }
    if (complete && c.parser.keepAlive()) {
      c.state = Connection::State::Idle;
      idle.push_back(&c);
    } else {
      close(c, now);
      if (complete && now < end) open(c);  // the server ended the connection after its answer
    }
  };

  for (auto& c : connections) open(*c);

  // Connect everything before the clock starts, so set-up is not measured.
  const int64_t connect_deadline = nowNs() + 15 * kSecond;
  std::vector<epoll_event> events(1024);
  auto pendingConnects = [&] {
    return std::count_if(connections.begin(), connections.end(),
                         [](const auto& c) { return c->state != Connection::State::Idle; });
  };
  while (pendingConnects() > 0 && nowNs() < connect_deadline) {
    const int n = ::epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 100);
    for (int i = 0; i < n; ++i) {
      auto& c = *static_cast<Connection*>(events[i].data.ptr);
      if (c.state != Connection::State::Connecting) continue;
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) {
        close(c, nowNs());
        open(c);
        continue;
      }
      c.state = Connection::State::Idle;
      setEvents(c);
    }
    for (auto& c : connections) {
      if (c->state == Connection::State::Closed) open(*c);
    }
  }
  // Closed loop with a ramp-up: connection i sends its first request ramp_up_s * i / n after the
  // start, so thousands of streams do not all pace in lockstep. They wait in `starting` until then.
  std::deque<Connection*> starting;
  for (auto& c : connections) {
    if (c->state != Connection::State::Idle) continue;
    if (options_.ramp_up_s > 0 && options_.rate <= 0) {
      starting.push_back(c.get());
    } else {
      idle.push_back(c.get());
    }
  }

  start_line_.arrive_and_wait();
  running = true;
  const int64_t t0 = nowNs();
  const int64_t ramp_up = static_cast<int64_t>(options_.ramp_up_s * kSecond);
  auto startAt = [&](size_t i) {
    // Interleaves the threads: thread t's i-th connection is overall connection i * threads + t.
    const auto overall = static_cast<int64_t>(i) * options_.threads + index_;
    return t0 + ramp_up * overall / std::max(1, options_.connections);
  };
  size_t started = 0;
  warm_end = t0 + static_cast<int64_t>(options_.warmup_s * kSecond);
  end = warm_end + static_cast<int64_t>(options_.duration_s * kSecond);
  const bool open_loop = options_.rate > 0;
  const int64_t interval = open_loop ? static_cast<int64_t>(kSecond * options_.threads / options_.rate) : 0;
  int64_t next_send = t0 + (open_loop ? interval * index_ / options_.threads : 0);
  int64_t next_sweep = t0;
  const int64_t timeout = static_cast<int64_t>(options_.timeout_ms) * kMs;
  std::vector<char> buffer(256 * 1024);

  for (;;) {
    int64_t now = nowNs();
    const bool stopping = now >= end;
    if (stopping) {
      for (const int64_t start : backlog) {
        if (inWindow(start)) ++stats.unsent;
      }
      backlog.clear();
      const bool busy = std::any_of(connections.begin(), connections.end(),
                                    [](const auto& c) { return c->state == Connection::State::Busy; });
      if (!busy || now >= end + timeout) break;
    } else {
      if (open_loop) {
        while (next_send <= now) {
          backlog.push_back(next_send);
          next_send += interval;
        }
        stats.backlog_max = std::max<int64_t>(stats.backlog_max, static_cast<int64_t>(backlog.size()));
      }
      while (!starting.empty() && startAt(started) <= now) {
        Connection& c = *starting.front();
        starting.pop_front();
        ++started;
        if (c.state == Connection::State::Idle) send(c, now);
      }
      while (!idle.empty() && (open_loop ? !backlog.empty() : true)) {
        Connection& c = *idle.back();
        idle.pop_back();
        if (c.state != Connection::State::Idle) continue;
        int64_t start = now;
        if (open_loop) {
          start = backlog.front();
          backlog.pop_front();
        }
        send(c, start);
      }
    }
    if (now >= next_sweep) {
      next_sweep = now + 20 * kMs;
      for (auto& c : connections) {
        if (c->state == Connection::State::Busy && now - c->start > timeout) {
          if (c->recorded) ++stats.timeouts;
          close(*c, now);
        }
        if (c->state == Connection::State::Closed && !stopping && now >= c->retry_at) {
          if (running) ++stats.reconnects;
          open(*c);
        }
      }
    }

    int64_t wait = 20 * kMs;
    if (open_loop && !stopping) wait = std::clamp<int64_t>(next_send - now, 0, wait);
    if (!starting.empty() && !stopping) wait = std::clamp<int64_t>(startAt(started) - now, 0, wait);
    timespec wait_spec{static_cast<time_t>(wait / kSecond), static_cast<long>(wait % kSecond)};
    const int n = ::epoll_pwait2(epoll, events.data(), static_cast<int>(events.size()), &wait_spec, nullptr);
    now = nowNs();
    for (int i = 0; i < n; ++i) {
      auto& c = *static_cast<Connection*>(events[i].data.ptr);
      if (c.fd < 0) continue;
      if (c.state == Connection::State::Connecting) {
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
          ++stats.connect_errors;
          close(c, now + 10 * kMs);
          continue;
        }
        c.state = Connection::State::Idle;
        setEvents(c);
        idle.push_back(&c);
        continue;
      }
      if ((events[i].events & EPOLLOUT) && c.want_write) {
        const ssize_t sent = ::send(c.fd, request.data() + c.written, request.size() - c.written, MSG_NOSIGNAL);
        if (sent > 0) c.written += static_cast<size_t>(sent);
        if (c.written == request.size()) {
          c.want_write = false;
          setEvents(c);
        }
      }
      if (!(events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) continue;
      for (;;) {
        const ssize_t got = ::recv(c.fd, buffer.data(), buffer.size(), 0);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (got <= 0) {
          if (c.state == Connection::State::Busy) {
            finish(c, now, c.parser.finishOnClose() == ResponseParser::Result::Complete);
          }
          if (c.fd >= 0) close(c, now);
          break;
        }
        if (c.state != Connection::State::Busy) continue;  // bytes nobody asked for: ignore
        c.read_at = nowNs();
        size_t used = 0;
        const auto result = c.parser.feed(std::string_view(buffer.data(), static_cast<size_t>(got)), used);
        if (result == ResponseParser::Result::Malformed) {
          finish(c, c.read_at, false);
          break;
        }
        if (result == ResponseParser::Result::Complete) {
          finish(c, c.read_at, true);
          // Closed loop: the next request goes out at once on the same connection.
          if (!open_loop && c.state == Connection::State::Idle && c.read_at < end) {
            idle.pop_back();
            send(c, nowNs());
          }
          if (static_cast<size_t>(got) < buffer.size()) break;
        }
      }
    }
  }
  for (auto& c : connections) {
    if (c->state == Connection::State::Busy && c->recorded) ++stats.timeouts;
    if (c->fd >= 0) ::close(c->fd);
  }
  ::close(epoll);
  return stats;
}

}  // namespace sluice::bench
