// The connection's deadlines and caps over real socket pairs (serveConnection on a thread, as
// with --workers 0): what the client side receives is exactly what a client would.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <Poco/Net/HTTPServerParams.h>

#include "server/http/connection.h"
#include "tests/server/http/request_path_harness.h"
#include "tests/support/wait_until.h"

namespace sluice::http {
namespace {

using namespace std::chrono_literals;

// A gateway whose connections are served on threads; each accept() is a socket pair.
class Server {
 public:
  explicit Server(ServerOptions options) : gateway_(anonymous(options), testing::requestPathCatalog()), router_(gateway_) {
    params_ = new Poco::Net::HTTPServerParams;
    params_->setTimeout(Poco::Timespan(60, 0));
    params_->setKeepAliveTimeout(Poco::Timespan(60, 0));
    params_->setKeepAlive(true);
    params_->setMaxKeepAliveRequests(100);
  }
  ~Server() {
    for (const int fd : clients_) ::close(fd);
    for (auto& thread : threads_) thread.join();
  }

  // Connects one client: its end of the pair (owned by the server object), served on a thread.
  int connect() {
    int fds[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    timeval tick{0, 50000};  // the receive timeout Connection::run sets (a tick)
    ::setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
    ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
    clients_.push_back(fds[1]);
    threads_.emplace_back([this, fd = fds[0]] {
      serveConnection(fd, *params_, router_, gateway_);
      ::close(fd);
      ++finished_;
    });
    return fds[1];
  }
  void hangUp(int client) {
    for (auto& fd : clients_) {
      if (fd == client) {
        ::close(fd);
        fd = -1;
      }
    }
  }

  static ServerOptions anonymous(ServerOptions options) {
    options.insecure_no_auth = true;
    return options;
  }

  Gateway& gateway() { return gateway_; }
  int finished() const { return finished_.load(); }
  double counter(metrics::CounterFamily& family, const std::string& label) {
    return static_cast<double>(family.with({label}).value());
  }

 private:
  Gateway gateway_;
  routes::RouteTable router_;
  Poco::Net::HTTPServerParams::Ptr params_;
  std::vector<int> clients_;
  std::vector<std::thread> threads_;
  std::atomic<int> finished_{0};
};

// Reads what arrived on a non-blocking client end; `closed` once the server closed its end.
std::string readSome(int fd, bool* closed = nullptr) {
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 && closed) *closed = true;
    return out;
  }
}

// Sends one byte every `every` until stopped or the server stops reading.
class Trickle {
 public:
  Trickle(int fd, std::string bytes, std::chrono::milliseconds every)
      : thread_([this, fd, bytes = std::move(bytes), every] {
          for (size_t i = 0; !stop_.load(); i = (i + 1) % bytes.size()) {
            if (::send(fd, bytes.data() + i, 1, MSG_NOSIGNAL) != 1) return;
            std::this_thread::sleep_for(every);
          }
        }) {}
  ~Trickle() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::string answerOn(int fd, std::chrono::milliseconds timeout) {
  std::string received;
  test::waitUntil([&] { return (received += readSome(fd)).find("\r\n\r\n") != std::string::npos; }, timeout,
                  "an answer");
  return received;
}

BOOST_AUTO_TEST_SUITE(connection)

BOOST_AUTO_TEST_CASE(row6_a_head_trickled_byte_by_byte_is_cut_at_the_deadline) {
  ServerOptions options;
  options.head_timeout_ms = 300;
  Server server(options);
  const int client = server.connect();
  const auto started = std::chrono::steady_clock::now();
  // A byte every 20 ms: far inside any idle timer, never a whole head.
  Trickle trickle(client, "GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(4000, 'a'), 20ms);
  const std::string answer = answerOn(client, 5000ms);
  BOOST_TEST(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), answer);
  BOOST_TEST(answer.find("Connection: close") != std::string::npos);
  BOOST_TEST(answer.find("request_timeout") != std::string::npos);
  const bool in_time = std::chrono::steady_clock::now() - started < 3s;
  BOOST_TEST(in_time);
  test::waitUntil([&] { return server.finished() == 1; }, 5000ms, "the connection to close");
  BOOST_TEST(server.counter(server.gateway().metrics().requests_timed_out, "head") == 1);
}

BOOST_AUTO_TEST_CASE(a_keep_alive_wait_longer_than_the_head_deadline_is_not_cut) {
  ServerOptions options;
  options.head_timeout_ms = 200;
  Server server(options);
  const int client = server.connect();
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  BOOST_REQUIRE(::send(client, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  BOOST_TEST(answerOn(client, 5000ms).starts_with("HTTP/1.1 200"));
  // Idle between requests for longer than the head deadline: the next head's clock starts with
  // its first byte.
  std::this_thread::sleep_for(500ms);
  BOOST_REQUIRE(::send(client, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  BOOST_TEST(answerOn(client, 5000ms).starts_with("HTTP/1.1 200"));
  BOOST_TEST(server.counter(server.gateway().metrics().requests_timed_out, "head") == 0);
}

BOOST_AUTO_TEST_CASE(row6_a_connection_that_never_sends_is_closed_at_the_head_deadline_without_an_answer) {
  ServerOptions options;
  options.head_timeout_ms = 200;
  Server server(options);
  const int client = server.connect();
  test::waitUntil([&] { return server.finished() == 1; }, 5000ms, "the silent connection to close");
  bool closed = false;
  BOOST_TEST(readSome(client, &closed).empty());
  BOOST_TEST(closed);
  BOOST_TEST(server.counter(server.gateway().metrics().requests_timed_out, "head") == 0);
}

BOOST_AUTO_TEST_CASE(row6_a_body_below_the_minimum_rate_is_cut_with_408) {
  ServerOptions options;
  options.min_body_bytes_per_second = 1000;
  options.body_grace_ms = 200;
  Server server(options);
  const int client = server.connect();
  const std::string head =
      "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{";
  BOOST_REQUIRE(::send(client, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size()));
  Trickle trickle(client, std::string(100, ' '), 20ms);  // 50 bytes per second
  const std::string answer = answerOn(client, 5000ms);
  BOOST_TEST(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), answer);
  BOOST_TEST(answer.find("bytes per second") != std::string::npos);
  test::waitUntil([&] { return server.finished() == 1; }, 5000ms, "the connection to close");
  BOOST_TEST(server.counter(server.gateway().metrics().requests_timed_out, "body") == 1);
}

BOOST_AUTO_TEST_CASE(a_body_at_a_steady_rate_above_the_minimum_is_read_whole) {
  ServerOptions options;
  options.min_body_bytes_per_second = 100;
  options.body_grace_ms = 100;
  options.head_timeout_ms = 300;
  Server server(options);
  const int client = server.connect();
  const std::string body = testing::messagesBody("no-such-model");
  const std::string head = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  BOOST_REQUIRE(::send(client, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size()));
  // 20 bytes every 50 ms: 400 bytes per second, for longer than the head deadline and the grace.
  for (size_t at = 0; at < body.size(); at += 20) {
    const std::string piece = body.substr(at, 20);
    BOOST_REQUIRE(::send(client, piece.data(), piece.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(piece.size()));
    std::this_thread::sleep_for(50ms);
  }
  const std::string answer = answerOn(client, 5000ms);
  BOOST_TEST(!answer.starts_with("HTTP/1.1 408"), answer);
  BOOST_TEST(server.counter(server.gateway().metrics().requests_timed_out, "body") == 0);
}

BOOST_AUTO_TEST_CASE(row6_connections_over_the_per_peer_cap_are_refused) {
  ServerOptions options;
  options.max_connections_per_peer = 2;
  Server server(options);
  const int first = server.connect();
  server.connect();
  test::waitUntil([&] { return server.gateway().connectionLimits().open() == 2; }, 5000ms, "two open connections");
  const int third = server.connect();
  const std::string answer = answerOn(third, 5000ms);
  BOOST_TEST(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), answer);
  BOOST_TEST(answer.find("Connection: close") != std::string::npos);
  test::waitUntil([&] { return server.finished() == 1; }, 5000ms, "the refused connection to close");
  BOOST_TEST(server.counter(server.gateway().metrics().connections_refused, "max_per_peer") == 1);
  BOOST_TEST(server.counter(server.gateway().metrics().connections_refused, "max_connections") == 0);
  BOOST_TEST(server.gateway().metrics().open_connections.value() == 2);
  // A place given back is taken again.
  server.hangUp(first);
  test::waitUntil([&] { return server.gateway().connectionLimits().open() == 1; }, 5000ms, "a place given back");
  server.connect();
  test::waitUntil([&] { return server.gateway().connectionLimits().open() == 2; }, 5000ms, "the place taken again");
  BOOST_TEST(server.counter(server.gateway().metrics().connections_refused, "max_per_peer") == 1);
}

BOOST_AUTO_TEST_CASE(row6_connections_over_the_overall_cap_are_refused) {
  ServerOptions options;
  options.max_connections = 1;
  Server server(options);
  server.connect();
  test::waitUntil([&] { return server.gateway().connectionLimits().open() == 1; }, 5000ms, "one open connection");
  const std::string answer = answerOn(server.connect(), 5000ms);
  BOOST_TEST(answer.starts_with("HTTP/1.1 503 "), answer);
  BOOST_TEST(server.counter(server.gateway().metrics().connections_refused, "max_connections") == 1);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
