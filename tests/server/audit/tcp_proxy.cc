#include "tests/server/audit/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace sluice::test {

namespace {

size_t authorityStart(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t at = url.find('@', start);
  const size_t slash = url.find('/', start);
  return at != std::string::npos && (slash == std::string::npos || at < slash) ? at + 1 : start;
}

}  // namespace

std::pair<std::string, int> hostPort(const std::string& url) {
  const size_t start = authorityStart(url);
  const size_t end = url.find_first_of("/?", start);
  const std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return {authority, 5432};
  return {authority.substr(0, colon), std::stoi(authority.substr(colon + 1))};
}

std::string withHostPort(const std::string& url, const std::string& host, int port) {
  const size_t start = authorityStart(url);
  const size_t end = url.find_first_of("/?", start);
  return url.substr(0, start) + host + ":" + std::to_string(port) + (end == std::string::npos ? "" : url.substr(end));
}

TcpProxy::TcpProxy(std::string target_host, int target_port)
    : target_host_(std::move(target_host)), target_port_(target_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 64) != 0) {
    throw std::runtime_error("tcp proxy: cannot listen");
  }
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { acceptLoop(); });
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  setUp(false);
  ::shutdown(listener_, SHUT_RDWR);
  ::close(listener_);
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
  std::lock_guard lock(mutex_);
  for (int fd : sockets_) ::close(fd);
}

void TcpProxy::setUp(bool up) {
  up_ = up;
  if (up) return;
  std::lock_guard lock(mutex_);
  for (int fd : sockets_) ::shutdown(fd, SHUT_RDWR);
}

void TcpProxy::acceptLoop() {
  for (;;) {
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (stopping_) return;
      continue;
    }
    if (!up_) {
      ::close(client);
      continue;
    }
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(target_port_));
    ::inet_pton(AF_INET, target_host_ == "localhost" ? "127.0.0.1" : target_host_.c_str(), &address.sin_addr);
    if (::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(client);
      ::close(server);
      continue;
    }
    std::lock_guard lock(mutex_);
    sockets_.push_back(client);
    sockets_.push_back(server);
    threads_.emplace_back([this, client, server] { pump(client, server); });
    threads_.emplace_back([this, client, server] { pump(server, client); });
  }
}

void TcpProxy::pump(int from, int to) {
  char buffer[16384];
  for (;;) {
    const ssize_t got = ::recv(from, buffer, sizeof buffer, 0);
    if (got <= 0 || !up_) break;
    ssize_t sent = 0;
    while (sent < got) {
      const ssize_t n = ::send(to, buffer + sent, static_cast<size_t>(got - sent), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += n;
    }
    if (sent < got) break;
  }
  ::shutdown(from, SHUT_RDWR);
  ::shutdown(to, SHUT_RDWR);
}

}  // namespace sluice::test
