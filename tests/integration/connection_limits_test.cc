// Deadlines and connection caps against the real gateway over raw TCP: a head trickled byte by
// byte is cut at --head-timeout-ms, and one address never holds more than
// --max-connections-per-peer connections.

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/raw_connection.h"
#include "tests/support/wait_until.h"

using namespace std::chrono_literals;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

// A raw connection to the gateway's port, from 127.0.0.1 unless a source address is given.
class Tcp : public sluice::test::RawConnection {
 public:
  explicit Tcp(const std::string& base_url, const char* source = nullptr)
      : RawConnection(sluice::test::portOf(base_url), source) {}
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

// Behind a load balancer every client arrives from the balancer's address. Its connections are
// exempt from the per-peer cap (only --max-connections counts them); each request it forwards
// counts against the cap of the client its X-Forwarded-For names, while the request is served.
BOOST_AUTO_TEST_CASE(a_trusted_balancer_is_not_one_peer_but_each_forwarded_client_is) {
  GatewayOptions options;
  options.extra_args = {"--max-connections-per-peer", "4", "--trusted-balancers", "127.0.0.1/32",
                        "--head-timeout-ms", "5000"};
  Gateway gateway(options);
  // Eight idle connections from the balancer: all admitted (with the cap counting the balancer,
  // four were answered 503 at once).
  std::vector<std::unique_ptr<Tcp>> balancer;
  for (int i = 0; i < 8; ++i) balancer.push_back(std::make_unique<Tcp>(gateway.baseUrl()));
  std::this_thread::sleep_for(300ms);
  for (auto& connection : balancer) {
    BOOST_TEST(!connection->drain());
    BOOST_TEST(connection->received().empty());
  }
  // Five of them forward a request for one client, each still sending its body: four are served
  // (they wait for their bodies), the fifth is over that client's cap.
  const std::string head = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           "X-Forwarded-For: 192.0.2.1, 198.51.100.9\r\nContent-Length: 1000\r\n\r\n{";
  for (int i = 0; i < 5; ++i) {
    BOOST_REQUIRE(balancer[static_cast<size_t>(i)]->send(head));
    if (i < 4) std::this_thread::sleep_for(50ms);  // the four take their places first
  }
  sluice::test::waitUntil([&] { return balancer[4]->drain(); }, 5000ms, "the fifth request to be refused");
  BOOST_TEST(balancer[4]->received().starts_with("HTTP/1.1 503 Service Unavailable\r\n"), balancer[4]->received());
  BOOST_TEST(balancer[4]->received().find("too many connections open from this address") != std::string::npos);
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(!balancer[static_cast<size_t>(i)]->drain());
    BOOST_TEST(balancer[static_cast<size_t>(i)]->received().empty());
  }
  // Another client through the same balancer is not that client.
  BOOST_REQUIRE(
      balancer[5]->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.10\r\n\r\n"));
  sluice::test::waitUntil([&] { return balancer[5]->drain() || !balancer[5]->received().empty(); }, 5000ms,
                          "the other client's answer");
  BOOST_TEST(balancer[5]->received().starts_with("HTTP/1.1 200"), balancer[5]->received());
  BOOST_TEST(metric(gateway, "gateway_connections_refused_total{reason=\"max_per_peer\"}") == 1);
  // A peer that is not a balancer still has its own cap: 127.0.0.2 gets four connections.
  std::vector<std::unique_ptr<Tcp>> direct;
  for (int i = 0; i < 5; ++i) direct.push_back(std::make_unique<Tcp>(gateway.baseUrl(), "127.0.0.2"));
  // Whichever of the five the gateway accepted last is refused.
  const auto refused = [&] {
    int count = 0;
    for (auto& connection : direct) {
      connection->drain();
      if (connection->received().starts_with("HTTP/1.1 503 Service Unavailable\r\n")) ++count;
    }
    return count;
  };
  sluice::test::waitUntil([&] { return refused() > 0; }, 5000ms, "a direct connection over the cap to be refused");
  std::this_thread::sleep_for(100ms);
  BOOST_TEST(refused() == 1);
  BOOST_TEST(metric(gateway, "gateway_connections_refused_total{reason=\"max_per_peer\"}") == 2);
}

BOOST_AUTO_TEST_CASE(a_trusted_balancer_list_that_trusts_everyone_is_refused_at_boot) {
  GatewayOptions options;
  options.extra_args = {"--trusted-balancers", "0.0.0.0/1,128.0.0.0/1"};
  BOOST_CHECK_EXCEPTION(Gateway{options}, std::runtime_error, [](const std::runtime_error& error) {
    return std::string(error.what()).find("--trusted-balancers trusts every IPv4 address") != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE_END()
