#define BOOST_TEST_MODULE log_tests
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "server/log/json_log.h"

namespace sluice::log {
namespace {

using Json = nlohmann::json;

std::string jsonQuoted(std::string_view value) {
  std::string out;
  appendJsonString(out, value);
  return out;
}

BOOST_AUTO_TEST_SUITE(json_log)

BOOST_AUTO_TEST_CASE(a_line_is_one_json_object_with_the_fixed_fields_first) {
  Line line(Level::Warn, "request");
  line.field("request_id", "r1").field("status", 200).field("stream", true).field("duration_ms", 1.23456)
      .field("tokens", int64_t{9'000'000'000});
  const std::string text = line.text();
  BOOST_TEST(text.ends_with("}\n"));
  BOOST_TEST(text.find('\n') == text.size() - 1);
  BOOST_TEST(text.starts_with(R"({"ts":")"));
  const Json parsed = Json::parse(text);
  BOOST_TEST(parsed["level"] == "warn");
  BOOST_TEST(parsed["msg"] == "request");
  BOOST_TEST(parsed["request_id"] == "r1");
  BOOST_TEST(parsed["status"] == 200);
  BOOST_TEST(parsed["stream"] == true);
  BOOST_TEST(parsed["duration_ms"].get<double>() == 1.235);
  BOOST_TEST(parsed["tokens"] == 9'000'000'000);
  const std::string ts = parsed["ts"];
  BOOST_TEST(ts.size() == 24u);  // 2026-11-30T01:02:03.456Z
  BOOST_TEST(ts[10] == 'T');
  BOOST_TEST(ts.back() == 'Z');
}

BOOST_AUTO_TEST_CASE(strings_are_escaped_as_json_requires) {
  BOOST_TEST(jsonQuoted("plain /v1/messages?x=1") == R"("plain /v1/messages?x=1")");
  BOOST_TEST(jsonQuoted("q\"b\\s\n\r\t\b\f") == R"("q\"b\\s\n\r\t\b\f")");
  BOOST_TEST(jsonQuoted(std::string_view("\x01\x1f\0", 3)) == R"("\u0001\u001f\u0000")");
  BOOST_TEST(jsonQuoted("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_become_replacement_characters) {
  const std::string bad[] = {"\xFF", "\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80"};
  for (const std::string& bytes : bad) {
    const std::string text = jsonQuoted("a" + bytes + "b");
    BOOST_TEST(Json::parse(text).get<std::string>().starts_with("a\xEF\xBF\xBD"), text);
    BOOST_TEST(Json::parse(text).get<std::string>().ends_with("b"), text);
  }
  // Truncated at the very end.
  BOOST_TEST(jsonQuoted("x\xE2\x82") == "\"x\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

BOOST_AUTO_TEST_CASE(every_byte_string_gives_parseable_json) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  Line line(Level::Info, all);
  line.field(all, all).field("n", std::nan("")).field("j", Json{{"a", 1}});
  const Json parsed = Json::parse(line.text());
  BOOST_TEST(parsed["n"].is_null());
  BOOST_TEST(parsed["j"]["a"] == 1);
  BOOST_TEST(parsed["msg"].get<std::string>().size() > 128u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::log
