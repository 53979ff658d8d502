#include "tools/mock-provider/stats.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::mock;

BOOST_AUTO_TEST_SUITE(stats)

BOOST_AUTO_TEST_CASE(counts_per_path_and_in_total) {
  Stats stats(2);
  ReceivedRequest request{"POST", "/v1/messages", "", {{"X-Api-Key", "k"}}, "{\"a\":1}"};
  stats.recordRequest(request, 1, "anthropic");
  stats.recordStatus(request.path, 200);
  stats.recordStreamStart(request.path);
  stats.recordEvent(request.path);
  stats.recordEvent(request.path);
  stats.recordStreamEnd(request.path, StreamEnd::ClientGone);
  stats.recordRequest({"POST", "/v1/responses", "", {}, "{}"}, 2, "openai-responses");
  stats.recordStreamEnd("/v1/responses", StreamEnd::Reset);

  const auto json = stats.statsJson();
  const auto& messages = json["paths"]["/v1/messages"];
  BOOST_TEST(messages["requests"] == 1);
  BOOST_TEST(messages["bytes_received"] == 7);
  BOOST_TEST(messages["streams_started"] == 1);
  BOOST_TEST(messages["streams_aborted"] == 1);
  BOOST_TEST(messages["events_sent"] == 2);
  BOOST_TEST(messages["statuses"]["200"] == 1);
  BOOST_TEST(json["paths"]["/v1/responses"]["streams_reset"] == 1);
  BOOST_TEST(json["totals"]["requests"] == 2);
  BOOST_TEST(!json["totals"].contains("statuses"));
}

BOOST_AUTO_TEST_CASE(keeps_the_last_requests_and_resets) {
  Stats stats(2);
  BOOST_TEST(!stats.lastJson().has_value());
  for (int i = 1; i <= 3; ++i) stats.recordRequest({"POST", "/p" + std::to_string(i), "q=1", {{"A", "1"}, {"a", "2"}}, "x"}, i, "gemini");
  const auto last = stats.lastJson();
  BOOST_TEST_REQUIRE(last.has_value());
  BOOST_TEST((*last)["path"] == "/p3");
  BOOST_TEST((*last)["seq"] == 3);
  BOOST_TEST((*last)["headers"]["a"] == "1, 2");
  BOOST_TEST((*last)["json"].is_null());
  BOOST_TEST(stats.historyJson().size() == 2u);
  BOOST_TEST(stats.historyJson()[0]["path"] == "/p2");
  stats.reset();
  BOOST_TEST(!stats.lastJson().has_value());
  BOOST_TEST(stats.statsJson()["paths"].empty());
}

BOOST_AUTO_TEST_SUITE_END()
