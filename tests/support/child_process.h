#pragma once
// Runs a server binary for an integration test: starts it with arguments and extra environment,
// waits for its "listening on HOST:PORT" line on stdout, and stops it (SIGTERM, then SIGKILL)
// when destroyed. The child's stdout and stderr are drained continuously into memory so it can
// never block on a full pipe; stderr goes into every start-up error message.
//
//   sluice::test::ChildProcess mock({.binary = sluice::test::binPath("sluice-mock-provider"),
//                                    .args = {"--listen", "127.0.0.1:0"}});
//   std::string base = mock.baseUrl();   // "http://127.0.0.1:41234"
//
// Designated initializers leave out what they do not need (every member has a default).
// Not thread-safe: use one object from one thread (the internal reader thread is private).

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sluice::test {

struct ChildOptions {
  std::string binary{};                                     // path to the executable
  std::vector<std::string> args{};                          // argv[1..]
  std::vector<std::pair<std::string, std::string>> env{};   // added to (or replacing in) the parent's environment
  std::vector<std::string> unset_env{};                     // removed from the inherited environment
  std::optional<std::string> working_dir{};                 // default: the test's current directory
  bool wait_for_listening = true;                           // wait for "listening on HOST:PORT"
  std::chrono::milliseconds ready_timeout{10'000};
  bool echo_stderr = false;                                 // also copy the child's stderr to ours
};

class ChildProcess {
 public:
  // Starts the child and, unless wait_for_listening is false, waits for the listening line.
  // Throws std::runtime_error (with the child's stderr) when it cannot start, exits early,
  // or does not print the line within ready_timeout; the child is killed first.
  explicit ChildProcess(ChildOptions options);
  ~ChildProcess();  // stop()
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // From the listening line; empty / 0 when wait_for_listening was false.
  const std::string& host() const { return host_; }
  int port() const { return port_; }
  // "http://HOST:PORT" (IPv6 hosts in brackets).
  std::string baseUrl() const;

  // Sends SIGTERM, waits up to `grace`, then SIGKILL. Returns the exit code (0–255), or
  // 128 + signal when killed by a signal. Safe to call more than once (returns the same code).
  int stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5'000));
  // Sends `signal` without waiting.
  void sendSignal(int signal);
  // Waits up to `timeout` for the child to exit on its own; returns its code as stop() does.
  std::optional<int> waitForExit(std::chrono::milliseconds timeout);
  bool running();

  // Everything the child wrote so far (the tail, if it wrote more than 4 MiB); after the child
  // exited, everything it wrote (waits up to 2 s for the pipe to drain).
  std::string stdoutText() const;
  std::string stderrText() const;
  // Waits until stderr contains `needle` (true) or `timeout` passes (false).
  bool waitForStderr(const std::string& needle, std::chrono::milliseconds timeout) const;

 private:
  void readLoop();
  void waitForListening(std::chrono::milliseconds timeout);
  std::optional<int> reap(bool block);

  ChildOptions options_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string host_;
  int port_ = 0;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string stdout_;
  std::string stderr_;
  bool streams_closed_ = false;
  std::thread reader_;
};

}  // namespace sluice::test
