#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <string>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

#include "server/net/send_all.h"

namespace sluice::net {
namespace {

BOOST_AUTO_TEST_SUITE(send_all)

BOOST_AUTO_TEST_CASE(pieces_arrive_in_order_even_when_the_kernel_takes_them_in_parts) {
  int fds[2];
  BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  const int size = 4096;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);  // forces partial writes
  const std::string head = "HTTP/1.1 200 OK\r\n\r\n";
  const std::string body(1 << 20, 'b');
  std::string received;
  std::thread reader([&] {
    char buffer[8192];
    for (;;) {
      const ssize_t n = ::read(fds[1], buffer, sizeof buffer);
      if (n <= 0) break;
      received.append(buffer, static_cast<size_t>(n));
    }
  });
  BOOST_TEST(sendAll(fds[0], {head, "", body, "\r\n"}) == 0);
  ::close(fds[0]);
  reader.join();
  ::close(fds[1]);
  BOOST_TEST(received.size() == head.size() + body.size() + 2);
  BOOST_TEST((received == head + body + "\r\n"));
}

BOOST_AUTO_TEST_CASE(a_peer_that_left_is_an_error_not_a_signal) {
  int fds[2];
  BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  ::close(fds[1]);
  BOOST_TEST(sendAll(fds[0], {"data"}) == EPIPE);
  ::close(fds[0]);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::net
