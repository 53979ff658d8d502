// Masking under a flood, against the real gateway: bodies built to be expensive to mask (4 MiB of
// "-----BEGIN PRIVATE KEY-----!", which took 21 s each when every BEGIN line searched 64 KiB for
// its END line, on the event loop) keep no other connection waiting. The catalog is the
// data-protection one of the integration tests: `pub` is a public endpoint, private keys blocked.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

int portOf(const std::string& base_url) { return std::stoi(base_url.substr(base_url.rfind(':') + 1)); }

// One request on a fresh connection; the answer's first line (empty when none came in `deadline`).
std::string exchange(int port, const std::string& request, std::chrono::milliseconds deadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    const auto end = Clock::now() + deadline;
    while (answer.find("\r\n") == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
      pollfd waiting{fd, POLLIN, 0};
      if (left <= 0 || ::poll(&waiting, 1, static_cast<int>(left)) <= 0) break;
      char buffer[4096];
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      answer.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer.substr(0, answer.find("\r\n"));
}

std::string post(const std::string& body) {
  return "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string messages(const std::string& model, const std::string& text) {
  return R"({"model":")" + model + R"(","max_tokens":20,"messages":[{"role":"user","content":")" + text + R"("}]})";
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size())))];
}

double msSince(Clock::time_point started) { return std::chrono::duration<double, std::milli>(Clock::now() - started).count(); }

struct Flood {
  int served = 0;                            // of the 50 legitimate requests
  std::vector<double> masked_ms;             // each legitimate request's time
  std::vector<double> healthz_ms;            // each /healthz probe's time
  std::vector<std::string> hostile_answers;  // each hostile body's status line
};

// 20 hostile 4 MiB bodies to `model` at once; meanwhile /healthz every 20 ms and 50 legitimate
// requests (an e-mail address to mask where the endpoint masks) one after the other.
Flood flood(Gateway& gateway, const std::string& model) {
  const int port = portOf(gateway.baseUrl());
  std::string markers;
  while (markers.size() < (4u << 20)) markers += "-----BEGIN PRIVATE KEY-----!";
  const std::string hostile = post(messages(model, markers));
  Flood result;
  result.hostile_answers.resize(20);
  std::atomic<int> hostile_done{0};
  std::vector<std::thread> senders;
  const auto flood_started = Clock::now();
  for (int i = 0; i < 20; ++i) {
    senders.emplace_back([&, i] {
      result.hostile_answers[i] = exchange(port, hostile, 120s);
      ++hostile_done;
    });
  }
  // /healthz every 20 ms for as long as the flood lasts (and at least as long as the legitimate
  // traffic), each on a fresh connection.
  std::atomic<bool> traffic_done{false};
  std::thread prober([&] {
    const std::string probe = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    while (!(traffic_done && hostile_done == 20) && msSince(flood_started) < 120'000) {
      const auto started = Clock::now();
      const std::string status = exchange(port, probe, 10s);
      result.healthz_ms.push_back(status.find(" 200") != std::string::npos ? msSince(started) : 10'000.0);
      std::this_thread::sleep_for(20ms);
    }
  });
  const std::string legitimate = post(messages(model, "Please write to ann.lee@example.com about the invoice."));
  for (int i = 0; i < 50; ++i) {
    const auto started = Clock::now();
    if (exchange(port, legitimate, 30s).find(" 200") != std::string::npos) ++result.served;
    result.masked_ms.push_back(msSince(started));
  }
  const int hostile_in_flight = 20 - hostile_done.load();
  traffic_done = true;
  for (std::thread& sender : senders) sender.join();
  prober.join();
  BOOST_TEST_MESSAGE(model << ": legitimate traffic beside 20 hostile 4 MiB bodies: served " << result.served
                     << "/50, p50 " << percentile(result.masked_ms, 0.5) << " ms, p99 "
                     << percentile(result.masked_ms, 0.99) << " ms; " << hostile_in_flight
                     << " hostile bodies still in flight after it; /healthz over " << result.healthz_ms.size()
                     << " probes: p50 " << percentile(result.healthz_ms, 0.5) << " ms, p99 "
                     << percentile(result.healthz_ms, 0.99) << " ms, max " << percentile(result.healthz_ms, 1.0)
                     << " ms; the flood ended after " << msSince(flood_started) << " ms");
  return result;
}

Gateway protectionGateway() {
  const std::string catalog = sluice::test::sourceDir() + "/tests/integration/catalogs/protection";
  GatewayOptions options;
  options.services = catalog;
  options.extra_args = {"--workers", "2", "--max-buffered-bytes", std::to_string(256u << 20)};
  options.extra_env = {{"PROTECTION_VAULT", catalog + "/vault.txt"}};
  return Gateway(options);
}

// What /healthz may wait beside the flood, at p99. Every step over a whole large body (reading it
// without zero-filling or moving it, walking it, rewriting it, masking it, copying it per attempt)
// is kept off the event loop or done once, and a fiber reads at most 256 KiB per turn of its
// worker. Measured on a loaded two-core machine (other builds running): 18-26 ms masked, 66-81 ms
// raw (the provider's copy of each 4 MiB shares the cores); before, 165-313 ms masked and
// 1.2-2.2 s raw. The bound leaves room for a slower CI machine.
constexpr double kHealthzP99Ms = 250.0;

// Every legitimate request served, /healthz answered within the bound, and every hostile body
// answered with `hostile_status`.
void checkServedBeside(const Flood& result, const std::string& hostile_status) {
  BOOST_TEST(result.served == 50);
  BOOST_TEST_REQUIRE(result.healthz_ms.size() >= 10u);
  BOOST_TEST(percentile(result.healthz_ms, 0.99) < kHealthzP99Ms);
  for (const std::string& answer : result.hostile_answers) BOOST_TEST(answer.rfind(hostile_status, 0) == 0, answer);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(abuse_masking)

BOOST_AUTO_TEST_CASE(hostile_bodies_masked_in_flight_keep_healthz_and_masked_traffic_served) {
  Gateway gateway = protectionGateway();
  // Each hostile body was read, masked within its budget and refused (a private key is a `block:`
  // kind for a public endpoint), in the caller's format.
  checkServedBeside(flood(gateway, "pub"), "HTTP/1.1 400");
}

// The same flood to a `trusted_raw` endpoint: nothing is masked, every 4 MiB body is read, walked,
// rewritten for the deployment's model and relayed to the provider, and /healthz still answers.
BOOST_AUTO_TEST_CASE(large_bodies_relayed_raw_keep_healthz_served) {
  Gateway gateway = protectionGateway();
  checkServedBeside(flood(gateway, "raw"), "HTTP/1.1 200");
}

BOOST_AUTO_TEST_SUITE_END()
