#pragma once
// A raw TCP connection to a server on loopback, for tests that lie about lengths, trickle bytes,
// hold connections open or come from another address: what the server does is read off the
// socket exactly as a client would see it. Header-only.

#include <cerrno>
#include <chrono>
#include <string>
#include <string_view>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

namespace sluice::test {

// The port of a base URL ("http://HOST:PORT").
inline int portOf(const std::string& base_url) { return std::stoi(base_url.substr(base_url.rfind(':') + 1)); }

class RawConnection {
 public:
  // To 127.0.0.1:`port`, from `source` (another loopback address stands for another peer).
  explicit RawConnection(int port, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd_ >= 0);
    if (source) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      BOOST_REQUIRE(::inet_pton(AF_INET, source, &local.sin_addr) == 1);
      BOOST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&& other) noexcept
      : fd_(other.fd_), received_(std::move(other.received_)), closed_(other.closed_) {
    other.fd_ = -1;
  }

  bool send(std::string_view bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }

  // What arrives within `deadline`, until the server closes the connection.
  std::string readUntilClosed(std::chrono::milliseconds deadline, bool* closed = nullptr) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd waiting{fd_, POLLIN, 0};
      if (::poll(&waiting, 1, static_cast<int>(left.count())) <= 0) break;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        break;
      }
      out.append(buffer, static_cast<size_t>(n));
    }
    return out;
  }

  // Takes what has arrived into received(), without waiting; true once the server closed its end
  // (or reset it).
  bool drain() {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n > 0) {
        received_.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) closed_ = true;
      return closed_;
    }
  }
  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  std::string received_;
  bool closed_ = false;
};

}  // namespace sluice::test
