#include "tests/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace sluice::test {
namespace {

constexpr std::size_t kMaxCaptured = 4 << 20;
constexpr std::string_view kListening = "listening on ";

void appendCapped(std::string& buffer, const char* data, std::size_t size) {
  buffer.append(data, size);
  if (buffer.size() > kMaxCaptured) buffer.erase(0, buffer.size() - kMaxCaptured);
}

std::vector<std::string> buildEnvironment(const ChildOptions& options) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view item(*entry);
    const std::string_view name = item.substr(0, item.find('='));
    bool replaced = false;
    for (const auto& [key, value] : options.env) replaced = replaced || key == name;
    for (const auto& key : options.unset_env) replaced = replaced || key == name;
    if (!replaced) env.emplace_back(item);
  }
  for (const auto& [key, value] : options.env) env.push_back(key + "=" + value);
  return env;
}

int decodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ChildProcess::ChildProcess(ChildOptions options) : options_(std::move(options)) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (options_.working_dir) posix_spawn_file_actions_addchdir_np(&actions, options_.working_dir->c_str());

  // A clean signal state: nothing blocked, the stop signals at their defaults, own process group
  // (a terminal's Ctrl-C reaches the test, which then stops the child itself).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> arg_strings{options_.binary};
  arg_strings.insert(arg_strings.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (auto& arg : arg_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = buildEnvironment(options_);
  std::vector<char*> envp;
  for (auto& item : env_strings) envp.push_back(item.data());
  envp.push_back(nullptr);

  const int rc = posix_spawn(&pid_, options_.binary.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    pid_ = -1;
    throw std::runtime_error("cannot start " + options_.binary + ": " + std::strerror(rc));
  }
  stdout_fd_ = out_pipe[0];
  stderr_fd_ = err_pipe[0];
  reader_ = std::thread([this] { readLoop(); });

  if (options_.wait_for_listening) {
    try {
      waitForListening(options_.ready_timeout);
    } catch (...) {
      // The destructor does not run for an object whose constructor throws: clean up here.
      stop(std::chrono::milliseconds(1'000));
      if (reader_.joinable()) reader_.join();
      ::close(stdout_fd_);
      ::close(stderr_fd_);
      throw;
    }
  }
}

ChildProcess::~ChildProcess() {
  stop();
  if (reader_.joinable()) reader_.join();
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

void ChildProcess::readLoop() {
  pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
  int open_streams = 2;
  char buffer[8192];
  while (open_streams > 0) {
    // NOTE: a grandchild could hold the pipes open after the child died; the timeout lets the
    // loop notice that the child is gone and stop.
    const int ready = ::poll(fds, 2, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) {
      std::lock_guard lock(mutex_);
      if (exit_code_) break;
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        fds[i].fd = -1;
        --open_streams;
        continue;
      }
      if (i == 1 && options_.echo_stderr) (void)!::write(STDERR_FILENO, buffer, static_cast<std::size_t>(n));
      std::lock_guard lock(mutex_);
      appendCapped(i == 0 ? stdout_ : stderr_, buffer, static_cast<std::size_t>(n));
      changed_.notify_all();
    }
  }
  std::lock_guard lock(mutex_);
  streams_closed_ = true;
  changed_.notify_all();
}

void ChildProcess::waitForListening(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mutex_);
  while (true) {
    // Look for a complete "listening on HOST:PORT" line.
    std::size_t start = 0;
    while (start < stdout_.size()) {
      const auto end = stdout_.find('\n', start);
      if (end == std::string::npos) break;
      std::string_view line(stdout_.data() + start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with(kListening)) {
        const std::string_view address = line.substr(kListening.size());
        const auto colon = address.rfind(':');
        if (colon != std::string_view::npos) {
          std::string_view host = address.substr(0, colon);
          if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
          host_ = std::string(host);
          port_ = std::stoi(std::string(address.substr(colon + 1)));
          return;
        }
      }
      start = end + 1;
    }
    const bool ended = streams_closed_;
    if (ended || std::chrono::steady_clock::now() >= deadline) {
      const std::string why = ended ? "exited before printing" : "did not print";
      const std::string message = options_.binary + " " + why + " 'listening on HOST:PORT' within " +
                                  std::to_string(timeout.count()) + " ms\n--- stdout ---\n" + stdout_ +
                                  "\n--- stderr ---\n" + stderr_;
      throw std::runtime_error(message);
    }
    changed_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)));
    lock.unlock();
    reap(false);
    lock.lock();
  }
}

std::optional<int> ChildProcess::reap(bool block) {
  {
    std::lock_guard lock(mutex_);
    if (exit_code_ || pid_ <= 0) return exit_code_;
  }
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done != pid_) return std::nullopt;
  std::lock_guard lock(mutex_);
  exit_code_ = decodeStatus(status);
  changed_.notify_all();
  return exit_code_;
}

std::string ChildProcess::baseUrl() const {
  const bool ipv6 = host_.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  if (auto code = reap(false)) return *code;
  ::kill(pid_, SIGTERM);
  if (auto code = waitForExit(grace)) return *code;
  ::kill(pid_, SIGKILL);
  return reap(true).value_or(-1);
}

void ChildProcess::sendSignal(int signal) {
  if (pid_ > 0 && !reap(false)) ::kill(pid_, signal);
}

std::optional<int> ChildProcess::waitForExit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto code = reap(false)) return code;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool ChildProcess::running() { return pid_ > 0 && !reap(false); }

std::string ChildProcess::stdoutText() const {
  std::unique_lock lock(mutex_);
  // Once the child is gone, what it wrote last may still sit in the pipe: wait for the reader
  // to reach the end of it.
  if (exit_code_) changed_.wait_for(lock, std::chrono::seconds(2), [&] { return streams_closed_; });
  return stdout_;
}

std::string ChildProcess::stderrText() const {
  std::unique_lock lock(mutex_);
  if (exit_code_) changed_.wait_for(lock, std::chrono::seconds(2), [&] { return streams_closed_; });
  return stderr_;
}

bool ChildProcess::waitForStderr(const std::string& needle, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return stderr_.find(needle) != std::string::npos; });
}

}  // namespace sluice::test
