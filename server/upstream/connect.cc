#include "server/upstream/connect.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/upstream/tls.h"

namespace sluice::upstream {

namespace {

[[noreturn]] void throwConnect(const Target& target, const std::string& why) {
  throw TransportError(TransportFailure::Connect, "cannot connect to " + target.host + ":" + target.port + ": " + why);
}

bool isAddressLiteral(const std::string& host) {
  in6_addr ip{};
  return ::inet_pton(AF_INET, host.c_str(), &ip) == 1 || ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
}

}  // namespace

std::unique_ptr<Link> connectTo(const Target& target, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  // A name lookup may wait on DNS: on a fiber it runs on a helper thread (fiber.h blocking()).
  // An address literal resolves without one.
  const int resolved =
      isAddressLiteral(target.host)
          ? ::getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &found)
          : net::fiber::blocking([&] { return ::getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &found); });
  if (resolved != 0) throwConnect(target, std::string("cannot resolve the host: ") + ::gai_strerror(resolved));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  auto link = std::make_unique<Link>();
  std::string last_error = "no address";
  bool timed_out = false;
  for (const addrinfo* address = found; address && link->fd < 0; address = address->ai_next) {
    // Non-blocking while connecting, whatever the thread: the wait is bounded by the deadline.
    const int fd = ::socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int status = ::connect(fd, address->ai_addr, address->ai_addrlen);
    net::fiber::Registration registration;
    if (status != 0 && errno == EINPROGRESS) {
      const bool ready =
          net::fiber::waitFd(fd, registration, net::fiber::Want::Write, deadline) == net::fiber::Wait::Ready;
      if (!ready) {
        timed_out = true;
        last_error = "timed out";
        ::close(fd);
        break;
      }
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      status = error == 0 ? 0 : -1;
      errno = error;
    }
    if (status != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    link->fd = fd;
    link->nonblocking = true;
    link->registration = registration;
    link->useFibers(net::fiber::active());
  }
  if (link->fd < 0) {
    if (timed_out) throw TransportError(TransportFailure::Connect, "timed out connecting to the provider");
    throwConnect(target, last_error);
  }
  if (target.tls) startTls(*link, target.host, deadline);
  return link;
}

}  // namespace sluice::upstream
