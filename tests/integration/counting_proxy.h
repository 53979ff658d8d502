#pragma once
// A TCP relay on 127.0.0.1, port 0, in front of one upstream (the test's PostgreSQL): it forwards
// bytes both ways and counts the connections it accepted, so a test can tell how many sessions
// the gateway opened. Stops (closing every relayed connection) on destruction; the gateway using
// it should go first.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sluice::test {

class CountingProxy {
 public:
  CountingProxy(std::string upstream_host, int upstream_port)
      : upstream_host_(std::move(upstream_host)), upstream_port_(upstream_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        ::listen(listener_, 64) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      throw std::runtime_error("counting proxy: cannot listen");
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }
  ~CountingProxy() {
    stopping_ = true;
    acceptor_.join();
    ::close(listener_);
    {
      const std::lock_guard lock(mutex_);
      for (const int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& pump : pumps_) pump.join();
    for (const int fd : fds_) ::close(fd);
  }
  CountingProxy(const CountingProxy&) = delete;
  CountingProxy& operator=(const CountingProxy&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  // From now on the upstream is away: relayed connections are cut, new ones closed at once.
  void cut() {
    cut_ = true;
    const std::lock_guard lock(mutex_);
    for (const int fd : fds_) ::shutdown(fd, SHUT_RDWR);
  }

 private:
  void acceptLoop() {
    while (!stopping_) {
      pollfd ready{listener_, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      ++accepted_;
      if (cut_) {
        ::close(client);
        continue;
      }
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in target{};
      target.sin_family = AF_INET;
      target.sin_port = htons(static_cast<uint16_t>(upstream_port_));
      ::inet_pton(AF_INET, upstream_host_.c_str(), &target.sin_addr);
      if (::connect(server, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
        ::close(server);
        ::close(client);
        continue;
      }
      const std::lock_guard lock(mutex_);
      fds_.push_back(client);
      fds_.push_back(server);
      pumps_.emplace_back([client, server] { pump(client, server); });
    }
  }

  // Forwards both ways until either side closes. The fds stay open until the destructor (closing
  // them here could free a number the destructor then shuts down).
  static void pump(int a, int b) {
    char buffer[16384];
    for (;;) {
      pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) return;
      for (int k = 0; k < 2; ++k) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t got = ::read(fds[k].fd, buffer, sizeof buffer);
        if (got <= 0) {
          ::shutdown(a, SHUT_RDWR);
          ::shutdown(b, SHUT_RDWR);
          return;
        }
        for (ssize_t sent = 0; sent < got;) {
          const ssize_t put = ::write(fds[1 - k].fd, buffer + sent, static_cast<size_t>(got - sent));
          if (put <= 0) return;
          sent += put;
        }
      }
    }
  }

  std::string upstream_host_;
  int upstream_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cut_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<int> fds_;
  std::vector<std::thread> pumps_;
};

}  // namespace sluice::test
