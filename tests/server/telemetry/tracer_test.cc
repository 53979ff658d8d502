#include <boost/test/unit_test.hpp>

#include <thread>

#include <nlohmann/json.hpp>

#include "server/telemetry/tracer.h"
#include "tests/fakes/fake_transport.h"

using namespace sluice;
using namespace sluice::telemetry;
using namespace std::chrono_literals;

namespace {

TraceExport exportTo(Protocol protocol = Protocol::Json) {
  TraceExport config;
  config.enabled = true;
  config.url = "http://127.0.0.1:4318/v1/traces";
  config.protocol = protocol;
  config.headers = {{"x-api-key", "collector-secret"}};
  config.schedule_delay_ms = 20;
  config.max_queue = 8;
  config.max_batch = 4;
  config.timeout_ms = 1000;
  return config;
}

std::vector<Span> spans(size_t count) {
  std::vector<Span> out(count);
  for (auto& span : out) {
    span.trace_id = newTraceId();
    span.span_id = newSpanId();
    span.name = "POST /v1/messages";
    span.kind = SpanKind::Server;
  }
  return out;
}

bool waitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 300; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tracer)

BOOST_AUTO_TEST_CASE(queued_spans_are_exported_in_batches_with_the_configured_headers) {
  fakes::FakeTransport transport;
  for (int i = 0; i < 4; ++i) transport.script("/v1/traces", fakes::FakeTransport::json(200, "{}"));
  Tracer tracer(exportTo(), senderFor(exportTo(), "replica-a", "1.2"), transport);
  tracer.start();
  tracer.offer(spans(3));
  tracer.offer(spans(3));
  BOOST_REQUIRE(waitFor([&] { return tracer.exportedSpans() == 6; }));
  tracer.stop();
  const auto sent = transport.sent();
  BOOST_REQUIRE(!sent.empty());
  BOOST_TEST(sent[0].url == "http://127.0.0.1:4318/v1/traces");
  bool keyed = false, json = false;
  for (const auto& [name, value] : sent[0].headers) {
    keyed = keyed || (name == "x-api-key" && value == "collector-secret");
    json = json || (name == "Content-Type" && value == "application/json");
  }
  BOOST_TEST(keyed);
  BOOST_TEST(json);
  size_t total = 0;
  for (const auto& request : sent) {
    const auto body = nlohmann::json::parse(request.body);
    const auto& batch = body["resourceSpans"][0]["scopeSpans"][0]["spans"];
    BOOST_TEST(batch.size() <= 4u);  // max_batch
    total += batch.size();
    const auto& resource = body["resourceSpans"][0]["resource"]["attributes"];
    BOOST_TEST(resource[1]["key"] == "service.instance.id");
    BOOST_TEST(resource[1]["value"]["stringValue"] == "replica-a");
  }
  BOOST_TEST(total == 6u);
  BOOST_TEST(tracer.droppedSpans() == 0u);
}

BOOST_AUTO_TEST_CASE(a_collector_that_answers_503_is_tried_again_and_a_full_queue_drops_and_counts) {
  fakes::FakeTransport transport;
  transport.script("/v1/traces", fakes::FakeTransport::json(503, "busy"));
  transport.script("/v1/traces", fakes::FakeTransport::json(200, "{}"));
  TraceExport config = exportTo(Protocol::Protobuf);
  Tracer tracer(config, senderFor(config, "r", ""), transport);
  uint64_t counted = 0;
  tracer.on_drop = [&](uint64_t n) { counted += n; };
  tracer.offer(spans(4));
  tracer.offer(spans(4));
  tracer.offer(spans(1));  // not started yet: the queue of 8 is full
  BOOST_TEST(tracer.droppedSpans() == 1u);
  BOOST_TEST(counted == 1u);
  tracer.start();
  BOOST_REQUIRE(waitFor([&] { return tracer.exportedSpans() == 4; }));
  tracer.stop();
  const auto sent = transport.sent();
  BOOST_REQUIRE(sent.size() >= 2u);
  BOOST_TEST(sent[0].body == sent[1].body);  // the same batch again
  bool protobuf = false;
  for (const auto& [name, value] : sent[0].headers) protobuf = protobuf || value == "application/x-protobuf";
  BOOST_TEST(protobuf);
}

BOOST_AUTO_TEST_CASE(an_unreachable_collector_drops_after_its_tries_and_never_holds_the_stop) {
  fakes::FakeTransport transport;  // no script: every send fails to connect
  TraceExport config = exportTo();
  Tracer tracer(config, senderFor(config, "r", ""), transport);
  tracer.start();
  tracer.offer(spans(2));
  BOOST_REQUIRE(waitFor([&] { return tracer.droppedSpans() == 2; }));  // three tries, 0.5 s + 1 s apart
  BOOST_TEST(transport.sentCount() == 3u);
  tracer.offer(spans(2));
  const auto before = std::chrono::steady_clock::now();
  tracer.stop();
  BOOST_TEST((std::chrono::steady_clock::now() - before < 3s));
}

BOOST_AUTO_TEST_CASE(sampling_follows_the_parent_or_the_ratio) {
  fakes::FakeTransport transport;
  TraceExport config = exportTo();
  config.sampler = {SamplerKind::TraceIdRatio, true, 0.5};
  Tracer tracer(config, {}, transport);
  SpanContext unsampled;
  unsampled.sampled = false;
  BOOST_TEST(!tracer.sample(unsampled, "ffffffffffffffffffffffffffffffff"));
  SpanContext sampled;
  sampled.sampled = true;
  BOOST_TEST(tracer.sample(sampled, "ffffffffffffffffffffffffffffffff"));
  BOOST_TEST(tracer.sample(std::nullopt, "00000000000000000000000000000001"));   // low id: in
  BOOST_TEST(!tracer.sample(std::nullopt, "0000000000000000ffffffffffffffff"));  // high id: out
}

BOOST_AUTO_TEST_SUITE_END()
