// Deadlines and connection caps against the real gateway over raw TCP: a head trickled byte by
// byte is cut at --head-timeout-ms, and one address never holds more than
// --max-connections-per-peer connections.

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/wait_until.h"

using namespace std::chrono_literals;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

// A non-blocking TCP connection to the gateway's address (baseUrl() "http://HOST:PORT").
class Tcp {
 public:
  explicit Tcp(const std::string& base_url) {
    const std::string authority = base_url.substr(base_url.find("//") + 2);
    const size_t colon = authority.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(std::stoi(authority.substr(colon + 1))));
    BOOST_REQUIRE(::inet_pton(AF_INET, authority.substr(0, colon).c_str(), &address.sin_addr) == 1);
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd_ >= 0);
    BOOST_REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    ::fcntl(fd_, F_SETFL, O_NONBLOCK);
  }
  ~Tcp() { ::close(fd_); }
  Tcp(const Tcp&) = delete;

  bool send(std::string_view bytes) { return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()); }
  // Takes what arrived; true once the gateway closed its end (or reset it).
  bool drain() {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
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

double metric(Gateway& gateway, const std::string& series) {
  const std::string text = gateway.call("GET", "/metrics").body;
  const size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

GatewayOptions tight() {
  GatewayOptions options;
  options.extra_args = {"--head-timeout-ms", "300", "--max-connections-per-peer", "4"};
  return options;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(connection_limits)

BOOST_AUTO_TEST_CASE(row6_a_head_trickled_byte_by_byte_is_cut_at_the_deadline) {
  Gateway gateway(tight());
  Tcp client(gateway.baseUrl());
  const std::string head = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + std::string(2000, 'a');
  const auto started = std::chrono::steady_clock::now();
  size_t sent = 0;
  // A byte every 20 ms, far inside any idle timer: only a deadline ends it.
  sluice::test::waitUntil(
      [&] {
        if (client.drain()) return true;
        if (sent < head.size() && client.send(head.substr(sent, 1))) ++sent;
        std::this_thread::sleep_for(10ms);
        return false;
      },
      5000ms, "the gateway to close the trickling connection");
  BOOST_TEST(client.received().starts_with("HTTP/1.1 408 Request Timeout\r\n"), client.received());
  const bool in_time = std::chrono::steady_clock::now() - started < 3s;
  BOOST_TEST(in_time);
  BOOST_TEST(metric(gateway, "gateway_requests_timed_out_total{phase=\"head\"}") == 1);
}

BOOST_AUTO_TEST_CASE(row6_a_body_below_the_minimum_rate_is_cut_with_408) {
  GatewayOptions options;
  options.extra_args = {"--min-body-bytes-per-second", "1000", "--body-grace-ms", "200"};
  Gateway gateway(options);
  Tcp client(gateway.baseUrl());
  BOOST_REQUIRE(client.send("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Content-Length: 100000\r\n\r\n{"));
  // 50 bytes per second, never the 1000 asked for.
  sluice::test::waitUntil(
      [&] {
        if (client.drain()) return true;
        client.send(" ");
        std::this_thread::sleep_for(20ms);
        return false;
      },
      5000ms, "the gateway to close the slow body's connection");
  BOOST_TEST(client.received().starts_with("HTTP/1.1 408 Request Timeout\r\n"), client.received());
  BOOST_TEST(metric(gateway, "gateway_requests_timed_out_total{phase=\"body\"}") == 1);
}

BOOST_AUTO_TEST_CASE(row6_connections_over_the_per_peer_cap_are_refused) {
  Gateway gateway(tight());
  std::vector<std::unique_ptr<Tcp>> clients;
  for (int i = 0; i < 6; ++i) clients.push_back(std::make_unique<Tcp>(gateway.baseUrl()));
  // Four are admitted and, never sending, closed quietly at the head deadline; two are answered
  // 503 at once.
  sluice::test::waitUntil(
      [&] {
        bool all = true;
        for (auto& client : clients) all = client->drain() && all;
        return all;
      },
      5000ms, "every connection to be closed");
  int refused = 0;
  int silent = 0;
  for (const auto& client : clients) {
    if (client->received().starts_with("HTTP/1.1 503 Service Unavailable\r\n")) ++refused;
    if (client->received().empty()) ++silent;
  }
  BOOST_TEST(refused == 2);
  BOOST_TEST(silent == 4);
  BOOST_TEST(metric(gateway, "gateway_connections_refused_total{reason=\"max_per_peer\"}") == 2);
  BOOST_TEST(metric(gateway, "gateway_connections_refused_total{reason=\"max_connections\"}") == 0);
  // Once they closed, the address has its places back.
  BOOST_TEST(gateway.call("GET", "/healthz").status == 200);
}

BOOST_AUTO_TEST_SUITE_END()
