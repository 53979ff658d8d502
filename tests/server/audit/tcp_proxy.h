#pragma once
// A TCP forwarder on 127.0.0.1:0 in front of PostgreSQL, for tests that need the database to
// vanish and come back under a running writer: setUp(false) cuts every open connection and
// refuses new ones (accepts and closes them at once); setUp(true) forwards again.
// Thread-safe.

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::test {

class TcpProxy {
 public:
  TcpProxy(std::string target_host, int target_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  void setUp(bool up);

 private:
  void acceptLoop();
  void pump(int from, int to);

  std::string target_host_;
  int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> up_{true};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<int> sockets_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// `url` (postgresql://user:pass@host:port/db…) with host:port replaced.
std::string withHostPort(const std::string& url, const std::string& host, int port);
// The host and port of a postgresql:// URL (port 5432 when absent).
std::pair<std::string, int> hostPort(const std::string& url);

}  // namespace sluice::test
