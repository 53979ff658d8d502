#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

#include "server/http/client_watch.h"

namespace sluice::http {
namespace {

using namespace std::chrono_literals;

// Milliseconds until `cancel` is cancelled, up to `limit`.
long waitCancelled(const upstream::Cancel& cancel, std::chrono::milliseconds limit) {
  const auto started = std::chrono::steady_clock::now();
  while (!cancel.cancelled() && std::chrono::steady_clock::now() - started < limit) std::this_thread::sleep_for(2ms);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
}

BOOST_AUTO_TEST_SUITE(client_watch)

BOOST_AUTO_TEST_CASE(a_client_hanging_up_cancels_its_request_even_after_the_watch_slept) {
  ClientWatch watch;
  for (const auto idle : {0ms, 1300ms}) {  // the second round starts from the watch's deep sleep
    std::this_thread::sleep_for(idle);
    int fds[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    upstream::Cancel cancel;
    {
      const auto watching = watch.watch(fds[0], cancel);
      std::this_thread::sleep_for(50ms);
      BOOST_TEST(!cancel.cancelled());
      ::close(fds[1]);
      BOOST_TEST(waitCancelled(cancel, 2000ms) < 200, "after " << idle.count() << " ms idle");
    }
    ::close(fds[0]);
  }
}

BOOST_AUTO_TEST_CASE(bytes_from_the_client_are_not_a_hang_up) {
  ClientWatch watch;
  int fds[2];
  BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  upstream::Cancel cancel;
  {
    const auto watching = watch.watch(fds[0], cancel);
    BOOST_REQUIRE(::write(fds[1], "GET / HTTP/1.1\r\n\r\n", 18) == 18);  // a pipelined request
    std::this_thread::sleep_for(100ms);
    BOOST_TEST(!cancel.cancelled());
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
