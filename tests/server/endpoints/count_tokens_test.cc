// count_tokens as a profile of the one pipeline, in-process: which deployments are asked, and the
// gateway's estimate when none can answer.
#include <boost/test/unit_test.hpp>

#include <string>

#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

const std::string kBody = R"({"model":"chain-model","messages":[{"role":"user","content":"count these words please"}]})";

}  // namespace

BOOST_AUTO_TEST_SUITE(count_tokens)

BOOST_AUTO_TEST_CASE(a_provider_that_cannot_count_is_passed_to_the_next_then_the_estimate_answers) {
  RequestPath path;
  path.transport.script("primary.example/v1/messages/count_tokens", FakeTransport::json(503, R"({"type":"error"})"));
  path.transport.script("second.example/v1/messages/count_tokens", FakeTransport::json(500, R"({"type":"error"})"));
  const Reply reply = path.send("POST", "/v1/messages/count_tokens", kBody);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["input_tokens"].get<int64_t>() > 0);
  BOOST_TEST(path.transport.sent().size() == 2u);  // each asked once: no retry budget for counting
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.route_match.starts_with("endpoint:count_tokens"), row.route_match);
}

BOOST_AUTO_TEST_CASE(the_second_deployment_counts_when_the_first_is_unreachable) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::failBeforeHead(upstream::TransportFailure::Connect));
  path.transport.script("second.example/v1/messages/count_tokens", FakeTransport::json(200, R"({"input_tokens":7})"));
  const Reply reply = path.send("POST", "/v1/messages/count_tokens", kBody);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["input_tokens"] == 7);
  const auto row = path.onlyRow();
  BOOST_TEST(row.served_endpoint == "second/api");
  BOOST_TEST(row.usage.input_tokens == 0);  // counting is not spending
}

BOOST_AUTO_TEST_CASE(a_body_that_is_not_an_object_is_refused_in_the_anthropic_shape) {
  RequestPath path;
  const Reply reply = path.send("POST", "/v1/messages/count_tokens", "[1,2]");
  BOOST_TEST(reply.status == 400);
  BOOST_TEST(reply.json()["type"] == "error");
  BOOST_TEST(reply.json()["error"]["type"] == "invalid_request_error", reply.body);
  BOOST_TEST(path.transport.sent().empty());
  BOOST_TEST(path.onlyRow().status == 400);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
