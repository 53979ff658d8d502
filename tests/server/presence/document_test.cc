#include "server/presence/document.h"

#include <boost/test/unit_test.hpp>

using sluice::presence::parsePresenceDocument;

BOOST_AUTO_TEST_SUITE(document)

BOOST_AUTO_TEST_CASE(every_field_of_a_node_is_read) {
  const auto nodes = parsePresenceDocument(
      R"({"nodes": {"studio": {"available": true, "reason": "idle", "host": "10.0.0.7", "port": 8081, "busy": true}}})");
  BOOST_REQUIRE(nodes.has_value());
  const auto& studio = nodes->at("studio");
  BOOST_TEST(studio.available);
  BOOST_TEST(studio.busy);
  BOOST_TEST(studio.reason == "idle");
  BOOST_TEST(studio.host == "10.0.0.7");
  BOOST_TEST(studio.port == 8081);
}

BOOST_AUTO_TEST_CASE(missing_or_mistyped_flags_count_as_false) {
  const auto nodes = parsePresenceDocument(R"({"nodes": {"a": {}, "b": {"available": "yes", "busy": 1}}})");
  BOOST_REQUIRE(nodes.has_value());
  BOOST_TEST(!nodes->at("a").available);
  BOOST_TEST(!nodes->at("b").available);
  BOOST_TEST(!nodes->at("b").busy);
}

BOOST_AUTO_TEST_CASE(hostile_values_are_dropped_or_cleaned) {
  const std::string long_reason(1000, 'x');
  const auto nodes = parsePresenceDocument(
      R"({"nodes": {"bad name": {"available": true}, "ok": {"available": true, "host": "evil.example/path?x", "port": 8081,
      "reason": "line\nbreak )" + long_reason + R"("}, "port": {"available": true, "host": "h", "port": 70000}}})");
  BOOST_REQUIRE(nodes.has_value());
  BOOST_TEST(!nodes->contains("bad name"));
  const auto& ok = nodes->at("ok");
  BOOST_TEST(ok.host.empty());  // not a host name: no address
  BOOST_TEST(ok.port == 0);
  BOOST_TEST(ok.reason.size() == sluice::presence::kMaxReasonBytes);
  BOOST_TEST(ok.reason.find('\n') == std::string::npos);
  BOOST_TEST(nodes->at("port").port == 0);
}

BOOST_AUTO_TEST_CASE(a_document_that_is_not_one_is_refused) {
  BOOST_TEST(!parsePresenceDocument("not json").has_value());
  BOOST_TEST(!parsePresenceDocument("[]").has_value());
  BOOST_TEST(!parsePresenceDocument(R"({"nodes": []})").has_value());
  BOOST_TEST(!parsePresenceDocument(std::string(sluice::presence::kMaxDocumentBytes + 1, ' ')).has_value());
  BOOST_TEST(parsePresenceDocument(R"({"nodes": {}})").has_value());
}

BOOST_AUTO_TEST_CASE(nodes_are_bounded_in_number) {
  std::string text = R"({"nodes": {)";
  for (size_t i = 0; i < sluice::presence::kMaxNodes + 10; ++i) {
    text += (i ? "," : "") + std::string("\"n") + std::to_string(i) + R"(": {"available": true})";
  }
  text += "}}";
  const auto nodes = parsePresenceDocument(text);
  BOOST_REQUIRE(nodes.has_value());
  BOOST_TEST(nodes->size() == sluice::presence::kMaxNodes);
}

BOOST_AUTO_TEST_SUITE_END()
