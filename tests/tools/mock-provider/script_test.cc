#include "tools/mock-provider/script.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::mock;

BOOST_AUTO_TEST_SUITE(script)

BOOST_AUTO_TEST_CASE(empty_text_is_the_default_script) {
  auto parsed = parseScript("  ");
  BOOST_TEST_REQUIRE(parsed.has_value());
  BOOST_TEST(!parsed->status.has_value());
  BOOST_TEST(parsed->delay_ms == 0);
  BOOST_TEST(!parsed->echo);
}

BOOST_AUTO_TEST_CASE(reads_every_field) {
  auto parsed = parseScript(R"({"status":429,"error_type":"t","error_message":"m","error_code":"c","retry_after":3,
    "delay_ms":10,"chunk_delay_ms":5,"stall_after_events":2,"reset_after_events":4,"in_stream_error":6,"echo":true,
    "fixture":"anthropic/x.json","interaction":1,"text":"hi","tool_call":true,"tool_name":"f",
    "tool_arguments":{"a":1},"thinking":true,"finish":"length",
    "usage":{"input_tokens":1,"output_tokens":2,"cache_read":3,"cache_write":4,"reasoning":5},
    "headers":{"x-should-retry":"false"}})");
  BOOST_TEST_REQUIRE(parsed.has_value(), (parsed ? "" : parsed.error()));
  const Script& s = *parsed;
  BOOST_TEST(*s.status == 429);
  BOOST_TEST(*s.error_type == "t");
  BOOST_TEST(*s.error_message == "m");
  BOOST_TEST(*s.error_code == "c");
  BOOST_TEST(*s.retry_after == "3");
  BOOST_TEST(s.delay_ms == 10);
  BOOST_TEST(s.chunk_delay_ms == 5);
  BOOST_TEST(*s.stall_after_events == 2);
  BOOST_TEST(*s.reset_after_events == 4);
  BOOST_TEST(*s.in_stream_error == 6);
  BOOST_TEST(s.echo);
  BOOST_TEST(*s.fixture == "anthropic/x.json");
  BOOST_TEST(s.interaction == 1);
  BOOST_TEST(*s.text == "hi");
  BOOST_TEST(*s.tool_call);
  BOOST_TEST(*s.tool_name == "f");
  BOOST_TEST(s.tool_arguments->dump() == R"({"a":1})");
  BOOST_TEST(*s.thinking);
  BOOST_TEST((*s.finish == Finish::Length));
  BOOST_TEST(*s.usage.input_tokens == 1);
  BOOST_TEST(*s.usage.output_tokens == 2);
  BOOST_TEST(*s.usage.cache_read == 3);
  BOOST_TEST(*s.usage.cache_write == 4);
  BOOST_TEST(*s.usage.reasoning == 5);
  BOOST_TEST_REQUIRE(s.headers.size() == 1u);
  BOOST_TEST(s.headers[0].first == "x-should-retry");
}

BOOST_AUTO_TEST_CASE(accepts_true_for_in_stream_error_and_a_string_retry_after) {
  auto parsed = parseScript(R"({"in_stream_error":true,"retry_after":"Wed, 21 Oct 2026 07:28:00 GMT"})");
  BOOST_TEST_REQUIRE(parsed.has_value());
  BOOST_TEST(*parsed->in_stream_error == 1);
  BOOST_TEST(*parsed->retry_after == "Wed, 21 Oct 2026 07:28:00 GMT");
}

BOOST_AUTO_TEST_CASE(names_the_offending_field) {
  BOOST_TEST(parseScript("{").error().find("not valid JSON") != std::string::npos);
  BOOST_TEST(parseScript("[1]").error().find("JSON object") != std::string::npos);
  BOOST_TEST(parseScript(R"({"stauts":500})").error().find("'stauts'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"status":"500"})").error().find("'status'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"status":99})").error().find("between 100 and 599") != std::string::npos);
  BOOST_TEST(parseScript(R"({"delay_ms":-1})").error().find("'delay_ms'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"echo":1})").error().find("'echo'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"finish":"done"})").error().find("'finish'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"usage":{"tokens":1}})").error().find("'usage.tokens'") != std::string::npos);
  BOOST_TEST(parseScript(R"({"tool_arguments":"{}"})").error().find("'tool_arguments'") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
