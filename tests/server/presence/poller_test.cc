#include "server/presence/poller.h"

#include <boost/test/unit_test.hpp>

#include "server/metrics/gateway_metrics.h"
#include "tests/fakes/fake_transport.h"

using sluice::fakes::FakeTransport;

namespace {

std::shared_ptr<const sluice::catalog::Catalog> catalogWithHub(int stale_ms = 5000) {
  auto catalog = std::make_shared<sluice::catalog::Catalog>();
  catalog->presence = sluice::catalog::PresenceHub{"http://hub.test:7070", 1500, stale_ms, {}};
  sluice::catalog::Provider own;
  own.id = "own";
  sluice::catalog::Endpoint endpoint;
  endpoint.key = "own/studio";
  endpoint.presence_node = "studio";
  own.endpoints.push_back(endpoint);
  catalog->providers.push_back(own);
  return catalog;
}

struct Rig {
  std::shared_ptr<const sluice::catalog::Catalog> catalog = catalogWithHub();
  FakeTransport transport;
  sluice::presence::PresenceBoard board;
  sluice::metrics::Registry registry;
  sluice::metrics::GatewayMetrics metrics{registry};
  sluice::presence::PresencePoller poller{[this] { return catalog; }, transport, board, metrics};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(poller)

BOOST_AUTO_TEST_CASE(a_good_answer_is_published_and_counted) {
  Rig rig;
  rig.transport.script("/presence", FakeTransport::json(200, R"({"nodes": {"studio": {"available": true, "host": "h", "port": 1}}})"));
  const auto wait = rig.poller.pollOnce();
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count() == 1500);
  const auto sent = rig.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].method == "GET");
  BOOST_TEST(sent[0].url == "http://hub.test:7070/presence");
  const auto snapshot = rig.board.snapshot();
  BOOST_TEST(snapshot.configured);
  BOOST_TEST(snapshot.last_success.has_value());
  BOOST_TEST(snapshot.nodes.at("studio").available);
  const std::string text = rig.registry.render();
  BOOST_TEST(text.find("gateway_presence_polls_total{result=\"ok\"} 1") != std::string::npos);
  BOOST_TEST(text.find("gateway_presence_node_up{node=\"studio\"} 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failed_poll_keeps_the_last_nodes_and_says_why) {
  Rig rig;
  rig.transport.script("/presence", FakeTransport::json(200, R"({"nodes": {"studio": {"available": true}}})"));
  rig.transport.script("/presence", FakeTransport::json(500, "{}"));
  rig.poller.pollOnce();
  const auto first = rig.board.snapshot().last_success;
  rig.poller.pollOnce();
  const auto snapshot = rig.board.snapshot();
  BOOST_TEST((snapshot.last_success == first));
  BOOST_TEST(snapshot.nodes.at("studio").available);
  BOOST_TEST(snapshot.last_error.find("HTTP 500") != std::string::npos);
  BOOST_TEST(rig.registry.render().find("gateway_presence_polls_total{result=\"error\"} 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_unreachable_hub_or_a_bad_document_is_an_error) {
  Rig rig;
  rig.transport.script("/presence", FakeTransport::failBeforeHead(sluice::upstream::TransportFailure::Connect));
  rig.transport.script("/presence", FakeTransport::json(200, R"({"no": "nodes"})"));
  rig.poller.pollOnce();
  BOOST_TEST(!rig.board.snapshot().last_error.empty());
  rig.poller.pollOnce();
  BOOST_TEST(rig.board.snapshot().last_error.find("nodes") != std::string::npos);
  BOOST_TEST(!rig.board.snapshot().last_success.has_value());
}

BOOST_AUTO_TEST_CASE(without_a_hub_nothing_is_polled) {
  Rig rig;
  rig.catalog = std::make_shared<sluice::catalog::Catalog>();
  rig.poller.pollOnce();
  BOOST_TEST(rig.transport.sentCount() == 0u);
  BOOST_TEST(!rig.board.snapshot().configured);
}

BOOST_AUTO_TEST_SUITE_END()
