// The fake transport itself: scripts, FIFO order and repeats, every failure it can act, that every
// wait ends at once on cancel, and what it records. No test sleeps a fixed time; the longest wait
// is a scripted timeout of a few milliseconds, and waits on other threads have deadlines.
#include "tests/fakes/fake_transport.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace sluice::fakes {
namespace {

using namespace std::chrono_literals;
using upstream::Cancel;
using upstream::Request;
using upstream::TransportError;
using upstream::TransportFailure;

// A test that goes wrong fails within this, instead of hanging.
constexpr auto kDeadline = 5s;

Request post(std::string url, std::string body = "{}") {
  Request request;
  request.url = std::move(url);
  request.body = std::move(body);
  request.headers = {{"Content-Type", "application/json"}, {"x-api-key", "k"}};
  request.timeouts.connect_ms = 1000;
  request.timeouts.first_byte_ms = 1000;
  request.timeouts.idle_ms = 1000;
  return request;
}

// The failure `call` throws; fails the test when it throws nothing.
template <class Call>
TransportError failureOf(Call call) {
  try {
    call();
  } catch (const TransportError& error) {
    return error;
  }
  BOOST_FAIL("no TransportError");
  return TransportError(TransportFailure::Protocol, "unreachable");
}

bool sameFailure(const TransportError& error, TransportFailure failure) { return error.failure() == failure; }

// Runs `call` on another thread, cancels `cancel` once `waiting()` holds (polled, up to kDeadline),
// and returns what the call threw, requiring it to end within kDeadline of the cancel.
template <class Call, class Waiting>
TransportError failureWhenCancelled(Cancel& cancel, Call call, Waiting waiting) {
  auto ended = std::async(std::launch::async, [&] { return failureOf(call); });
  const auto until = std::chrono::steady_clock::now() + kDeadline;
  while (!waiting() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  cancel.cancel();
  BOOST_REQUIRE(ended.wait_for(kDeadline) == std::future_status::ready);
  return ended.get();
}

BOOST_AUTO_TEST_SUITE(fake_transport)

BOOST_AUTO_TEST_CASE(a_json_answer_comes_back_and_the_request_is_recorded) {
  FakeTransport transport;
  transport.script("/v1/messages", FakeTransport::json(201, R"({"ok":true})", {{"request-id", "r1"}}));
  auto answer = transport.send(post("https://api.example/v1/messages?beta=true", R"({"model":"m"})"));
  BOOST_TEST(answer->status() == 201);
  BOOST_TEST(answer->header("content-type") == "application/json");
  BOOST_TEST(answer->header("CONTENT-LENGTH") == "11");
  BOOST_TEST(answer->header("Request-Id") == "r1");
  BOOST_TEST(answer->header("absent") == "");
  BOOST_TEST(answer->headers().size() == 3u);
  BOOST_TEST(answer->readAll() == R"({"ok":true})");
  std::string more;
  BOOST_TEST(!answer->readSome(more));

  BOOST_REQUIRE(transport.sentCount() == 1u);
  const Request sent = transport.sent().front();
  BOOST_TEST(sent.method == "POST");
  BOOST_TEST(sent.url == "https://api.example/v1/messages?beta=true");
  BOOST_TEST(sent.body == R"({"model":"m"})");
  BOOST_REQUIRE(sent.headers.size() == 2u);
  BOOST_TEST(sent.headers[1].first == "x-api-key");
}

BOOST_AUTO_TEST_CASE(answers_come_in_order_the_first_matching_script_wins_and_a_repeat_stays) {
  FakeTransport transport;
  transport.script("a.example", FakeTransport::json(200, "one"));
  transport.script("example", FakeTransport::json(500, "other"));
  transport.script("a.example", FakeTransport::json(200, "two").repeating());
  BOOST_TEST(transport.send(post("http://a.example/x"))->readAll() == "one");
  for (int i = 0; i < 3; ++i) BOOST_TEST(transport.send(post("http://a.example/x"))->readAll() == "two");
  // "example" is registered after "a.example" but is the only one to match here.
  BOOST_TEST(transport.send(post("http://b.example/x"))->status() == 500);
  BOOST_TEST(transport.sentCount() == 5u);
}

BOOST_AUTO_TEST_CASE(no_script_or_a_spent_one_is_a_connect_failure_naming_the_url) {
  FakeTransport transport;
  const TransportError none = failureOf([&] { transport.send(post("http://nowhere/v1")); });
  BOOST_TEST(sameFailure(none, TransportFailure::Connect));
  BOOST_TEST(std::string(none.what()) == "no script for http://nowhere/v1");

  transport.script("once", FakeTransport::json(200, "{}"));
  transport.send(post("http://once/"));
  BOOST_TEST(sameFailure(failureOf([&] { transport.send(post("http://once/")); }), TransportFailure::Connect));
  BOOST_TEST(transport.sentCount() == 3u);  // failed ones are recorded too
}

BOOST_AUTO_TEST_CASE(a_failure_before_the_head_is_thrown_with_its_kind) {
  FakeTransport transport;
  for (const auto failure : {TransportFailure::Connect, TransportFailure::Timeout, TransportFailure::Reset,
                             TransportFailure::Tls, TransportFailure::Protocol}) {
    transport.script("p", FakeTransport::failBeforeHead(failure, 1ms));
    BOOST_TEST(sameFailure(failureOf([&] { transport.send(post("http://p/")); }), failure));
  }
  Scripted custom = FakeTransport::failBeforeHead(TransportFailure::Tls);
  custom.failure_message = "certificate not trusted";
  transport.script("p", custom);
  BOOST_TEST(std::string(failureOf([&] { transport.send(post("http://p/")); }).what()) == "certificate not trusted");
}

BOOST_AUTO_TEST_CASE(an_sse_stream_arrives_one_event_per_read) {
  FakeTransport transport;
  transport.script("stream", FakeTransport::sse({"event: a\ndata: 1", "data: 2\n", "data: [DONE]\n\n"}, 1ms));
  auto answer = transport.send(post("http://stream/"));
  BOOST_TEST(answer->status() == 200);
  BOOST_TEST(answer->header("Content-Type") == "text/event-stream");
  std::vector<std::string> reads;
  for (std::string chunk; answer->readSome(chunk); chunk.clear()) reads.push_back(chunk);
  BOOST_TEST(reads == (std::vector<std::string>{"event: a\ndata: 1\n\n", "data: 2\n\n", "data: [DONE]\n\n"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_reset_after_n_chunks_comes_from_the_next_read) {
  FakeTransport transport;
  transport.script("r", Scripted{}.chunk("a").chunk("b").chunk("c").resetAfter(2));
  auto answer = transport.send(post("http://r/"));
  std::string body;
  BOOST_TEST(answer->readSome(body));
  BOOST_TEST(answer->readSome(body));
  BOOST_TEST(body == "ab");
  BOOST_TEST(sameFailure(failureOf([&] { answer->readSome(body); }), TransportFailure::Reset));
  BOOST_TEST(!answer->readSome(body));  // the exchange is over
}

BOOST_AUTO_TEST_CASE(stalls_and_slow_bytes_time_out_by_the_request_timeouts) {
  FakeTransport transport;
  Request request = post("http://slow/");
  request.timeouts.first_byte_ms = 5;
  request.timeouts.idle_ms = 5;

  transport.script("slow", FakeTransport::stall());
  BOOST_TEST(sameFailure(failureOf([&] { transport.send(request); }), TransportFailure::Timeout));

  transport.script("slow", FakeTransport::json(200, "{}").delayHead(1h));
  BOOST_TEST(sameFailure(failureOf([&] { transport.send(request); }), TransportFailure::Timeout));

  transport.script("slow", Scripted{}.chunk("first").stallAfterBody());
  auto stalled = transport.send(request);
  std::string body;
  BOOST_TEST(stalled->readSome(body));
  BOOST_TEST(sameFailure(failureOf([&] { stalled->readSome(body); }), TransportFailure::Timeout));

  transport.script("slow", Scripted{}.chunk("late", 1h));
  auto late = transport.send(request);
  BOOST_TEST(sameFailure(failureOf([&] { late->readSome(body); }), TransportFailure::Timeout));

  // Within the limits the delays are only waited.
  request.timeouts.first_byte_ms = 1000;
  request.timeouts.idle_ms = 1000;
  transport.script("slow", FakeTransport::json(200, "{}").delayHead(2ms));
  BOOST_TEST(transport.send(request)->readAll() == "{}");
}

BOOST_AUTO_TEST_CASE(cancelling_ends_every_wait_at_once) {
  FakeTransport transport;
  Request request = post("http://wait/");
  request.timeouts.first_byte_ms = 60000;
  request.timeouts.idle_ms = 60000;

  // A send is recorded before it waits: cancelled once it is.
  const auto sent = [&](size_t count) { return [&transport, count] { return transport.sentCount() >= count; }; };
  const auto now = [] { return true; };

  transport.script("wait", FakeTransport::stall());
  Cancel stalled_head;
  const TransportError head =
      failureWhenCancelled(stalled_head, [&] { transport.send(request, &stalled_head); }, sent(1));
  BOOST_TEST(sameFailure(head, TransportFailure::Reset));
  BOOST_TEST(std::string(head.what()) == "cancelled");

  transport.script("wait", FakeTransport::failBeforeHead(TransportFailure::Connect, 1h));
  Cancel delayed_failure;
  BOOST_TEST(sameFailure(failureWhenCancelled(delayed_failure, [&] { transport.send(request, &delayed_failure); }, sent(2)),
                         TransportFailure::Reset));

  transport.script("wait", Scripted{}.chunk("a").chunk("b", 1h));
  Cancel slow_body;
  auto answer = transport.send(request, &slow_body);
  std::string body;
  BOOST_TEST(answer->readSome(body));
  BOOST_TEST(sameFailure(failureWhenCancelled(slow_body, [&] { answer->readSome(body); }, now), TransportFailure::Reset));

  transport.script("wait", Scripted{}.stallAfterBody());
  Cancel stalled_body;
  auto stalled = transport.send(request, &stalled_body);
  BOOST_TEST(sameFailure(failureWhenCancelled(stalled_body, [&] { stalled->readSome(body); }, now), TransportFailure::Reset));

  // Already cancelled: send throws without waiting.
  transport.script("wait", FakeTransport::json(200, "{}"));
  Cancel gone;
  gone.cancel();
  BOOST_TEST(sameFailure(failureOf([&] { transport.send(request, &gone); }), TransportFailure::Reset));
}

BOOST_AUTO_TEST_CASE(an_abort_ends_the_body_and_is_counted_once) {
  FakeTransport transport;
  transport.script("a", FakeTransport::sse({"data: 1", "data: 2"}).repeating());
  auto answer = transport.send(post("http://a/"));
  std::string body;
  BOOST_TEST(answer->readSome(body));
  answer->abort();
  answer->abort();
  BOOST_TEST(!answer->readSome(body));
  BOOST_TEST(transport.aborted() == 1);
  transport.send(post("http://a/"))->abort();
  BOOST_TEST(transport.aborted() == 2);
  transport.send(post("http://a/"));  // dropped unread: not an abort
  BOOST_TEST(transport.aborted() == 2);
}

BOOST_AUTO_TEST_CASE(many_threads_may_send_at_once) {
  FakeTransport transport;
  transport.script("shared", FakeTransport::json(200, "{}").repeating());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&transport, t] {
      for (int i = 0; i < 50; ++i) {
        transport.send(post("http://shared/" + std::to_string(t)))->readAll();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(transport.sentCount() == 400u);
  BOOST_TEST(transport.sent().size() == 400u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::fakes
