#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>
#include <vector>

#include "server/wire/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/json_scan.h"

namespace sluice::wire {
namespace {

std::string valueOf(std::string_view json, std::string_view key) {
  const MemberScan scan = scanTopLevelMember(json, key);
  BOOST_TEST_REQUIRE(scan.walked, json);
  return scan.value ? std::string(*scan.value) : std::string("<absent>");
}

BOOST_AUTO_TEST_SUITE(json_scan)

BOOST_AUTO_TEST_CASE(finds_the_top_level_member_and_skips_nested_ones) {
  const std::string json = R"( {"a":{"usage":1},"text":"a \"usage\": 2, {[","list":[1,-2.5e+3,true,false,null,{}],
      "usage" : {"prompt_tokens":3,"x":[]} , "z":"\u00e9\\"} )";
  BOOST_TEST(valueOf(json, "usage") == R"({"prompt_tokens":3,"x":[]})");
  BOOST_TEST(valueOf(json, "list") == R"([1,-2.5e+3,true,false,null,{}])");
  BOOST_TEST(valueOf(json, "missing") == "<absent>");
  BOOST_TEST(valueOf("{}", "usage") == "<absent>");
}

BOOST_AUTO_TEST_CASE(the_last_of_duplicate_keys_wins_as_in_a_parse) {
  BOOST_TEST(valueOf(R"({"usage":1,"usage":2})", "usage") == "2");
  BOOST_TEST(Json::parse(R"({"usage":1,"usage":2})")["usage"] == 2);
}

BOOST_AUTO_TEST_CASE(malformed_text_does_not_walk) {
  const std::vector<std::string> bad_values = {
      "", "{", "{\"usage\":}", "{\"usage\":1,}", "01", "1.", "-", "1e", "tru", "nul", "\"\x01\"", "\"\\x\"",
      "\"\\u12g4\"", "[1,]", "[1 2]", "\"open", "{\"a\" 1}", "{a:1}", "'a'", std::string(300, '[')};
  for (const std::string& bad : bad_values) {
    BOOST_TEST(!scanTopLevelMember("{\"k\":" + bad + "}", "k").walked, bad);
  }
  for (const std::string bad : {"", "[]", "\"usage\"", "{", "{\"a\":1} x", "{\"a\":1}}", "{\"a\":1,\"usage\"}"}) {
    BOOST_TEST(!scanTopLevelMember(bad, "usage").walked, bad);
  }
}

BOOST_AUTO_TEST_CASE(a_key_written_with_escapes_leaves_the_reading_to_a_parse) {
  BOOST_TEST(!scanTopLevelMember(R"({"usag\u0065":{"prompt_tokens":1}})", "usage").walked);
  BOOST_TEST(!scanResponseUsage(catalog::Wire::OpenAIChat, R"({"usag\u0065":{"prompt_tokens":1}})").has_value());
}

BOOST_AUTO_TEST_CASE(text_that_is_not_utf8_does_not_walk_as_a_parse_refuses_it) {
  for (const std::string bad : {"\xFF", "\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"}) {
    const std::string json = "{\"a\":\"x" + bad + "y\"}";
    BOOST_TEST(!scanTopLevelMember(json, "a").walked);
    BOOST_TEST(Json::parse(json, nullptr, false).is_discarded());
  }
  BOOST_TEST(valueOf("{\"a\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\"}", "a") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  BOOST_TEST(valueOf("\xEF\xBB\xBF{\"a\":1}", "a") == "1");  // a byte-order mark, as a parse allows
}

BOOST_AUTO_TEST_CASE(member_edits_rewrite_only_the_members_named) {
  const std::string body = "{ \"model\" : \"alias\", \"messages\":[{\"role\":\"user\",\"content\":\"h\xC3\xA9 \\\"q\\\"\"}],\n"
                           "  \"max_tokens\": 99999, \"x\": {\"model\": 1} }";
  const std::vector<MemberEdit> edits = {{"model", R"("upstream-1")"}, {"max_tokens", "8192"}};
  const auto edited = editTopLevelMembers(body, edits);
  BOOST_TEST_REQUIRE(edited.has_value());
  BOOST_TEST(*edited == "{ \"model\" : \"upstream-1\", \"messages\":[{\"role\":\"user\",\"content\":\"h\xC3\xA9 \\\"q\\\"\"}],\n"
                        "  \"max_tokens\": 8192, \"x\": {\"model\": 1} }");
}

BOOST_AUTO_TEST_CASE(member_edits_append_what_is_absent) {
  const std::vector<MemberEdit> edits = {{"model", R"("m")"}, {"stream_options", R"({"include_usage":true})"}};
  BOOST_TEST(*editTopLevelMembers(R"({"model":"a","stream":true})", edits) ==
             R"({"model":"m","stream":true,"stream_options":{"include_usage":true}})");
  BOOST_TEST(*editTopLevelMembers("{}", edits) == R"({"model":"m","stream_options":{"include_usage":true}})");
  BOOST_TEST(*editTopLevelMembers(" { } ", edits) == R"( { "model":"m","stream_options":{"include_usage":true}} )");
}

BOOST_AUTO_TEST_CASE(member_edits_change_the_member_a_parse_keeps) {
  const std::vector<MemberEdit> edits = {{"model", R"("m")"}};
  const auto edited = editTopLevelMembers(R"({"model":"first","model":"second"})", edits);
  BOOST_TEST_REQUIRE(edited.has_value());
  BOOST_TEST(*edited == R"({"model":"first","model":"m"})");
  BOOST_TEST(Json::parse(*edited)["model"] == "m");
  BOOST_TEST(!editTopLevelMembers(R"({"model":"a",})", edits).has_value());
  BOOST_TEST(!editTopLevelMembers(R"({"mod\u0065l":"a"})", edits).has_value());
}

BOOST_AUTO_TEST_CASE(member_edits_reuse_a_scan_made_for_more_keys) {
  const std::string body = R"({"stream":true,"model":"a","messages":[]})";
  const std::vector<std::string_view> keys = {"model", "stream", "max_tokens"};
  const MembersScan scan = scanTopLevelMembers(body, keys);
  const std::vector<MemberEdit> edits = {{"max_tokens", "5"}, {"model", R"("b")"}};
  BOOST_TEST(*editTopLevelMembers(body, scan, keys, edits) == R"({"stream":true,"model":"b","messages":[],"max_tokens":5})");
  // A key the scan did not look for: walked again.
  const std::vector<MemberEdit> other = {{"messages", "[1]"}};
  BOOST_TEST(*editTopLevelMembers(body, scan, keys, other) == R"({"stream":true,"model":"a","messages":[1]})");
}

BOOST_AUTO_TEST_CASE(text_nested_deeper_than_the_bound_is_left_to_a_parse) {
  const std::string deep = R"({"model":"m","a":)" + std::string(300, '[') + std::string(300, ']') + "}";
  BOOST_TEST(!Json::parse(deep, nullptr, false).is_discarded());
  BOOST_TEST(!scanTopLevelMember(deep, "model").walked);
  const std::vector<MemberEdit> edits = {{"model", R"("n")"}};
  BOOST_TEST(!editTopLevelMembers(deep, edits).has_value());
  const std::string within = R"({"model":"m","a":)" + std::string(150, '[') + std::string(150, ']') + "}";
  BOOST_TEST(valueOf(within, "model") == R"("m")");
}

BOOST_AUTO_TEST_CASE(gemini_usage_is_left_to_the_decode) {
  BOOST_TEST(!scanResponseUsage(catalog::Wire::Gemini, R"({"usageMetadata":{"promptTokenCount":1}})").has_value());
}

// A key the gateway reads, written twice: parsers disagree on which they keep, so both paths
// (the walk, and the SAX parse for text the walk refuses) report it.
BOOST_AUTO_TEST_CASE(row8_a_duplicated_key_asked_for_is_reported_by_the_scan_and_by_the_parse) {
  const std::string_view keys[] = {"model", "stream", "max_tokens"};
  const std::string twice = R"({"model":"big","max_tokens":999999,"model":"small","max_tokens":5})";
  const MembersScan scan = scanTopLevelMembers(twice, keys);
  BOOST_TEST_REQUIRE(scan.walked);
  BOOST_TEST_REQUIRE(scan.repeated.has_value());
  BOOST_TEST(*scan.repeated == 0u);  // model repeats first
  BOOST_TEST(repeatedTopLevelKey(twice, keys).value_or(9) == 0u);

  // Repeats of keys not asked for, or of nested keys, are nobody's business here.
  const std::string fine = R"({"model":"m","x":1,"x":2,"messages":[{"model":"a","model":"b"}],"meta":{"stream":1,"stream":2}})";
  BOOST_TEST(!scanTopLevelMembers(fine, keys).repeated.has_value());
  BOOST_TEST(!repeatedTopLevelKey(fine, keys).has_value());

  // An escaped spelling does not walk; the parse decodes it and sees the repeat.
  const std::string escaped = R"({"max_tokens":5,"model":"small","mod\u0065l":"big"})";
  BOOST_TEST(!scanTopLevelMembers(escaped, keys).walked);
  BOOST_TEST(repeatedTopLevelKey(escaped, keys).value_or(9) == 0u);
  BOOST_TEST(repeatedTopLevelKey(R"({"stream":true,"str\u0065am":false})", keys).value_or(9) == 1u);
  BOOST_TEST(!repeatedTopLevelKey(R"({"mod\u0065l":"m"})", keys).has_value());
  BOOST_TEST(!repeatedTopLevelKey("not json", keys).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire

// ---- json_parse.h: the nesting bound on every parse of outside text ----

BOOST_AUTO_TEST_SUITE(json_parse)

BOOST_AUTO_TEST_CASE(nesting_is_counted_outside_strings_only) {
  using sluice::wire::nestsDeeperThan;
  BOOST_TEST(!nestsDeeperThan(R"({"a":[1,{"b":[]}]})", 4));
  BOOST_TEST(nestsDeeperThan(R"({"a":[1,{"b":[]}]})", 3));
  BOOST_TEST(!nestsDeeperThan(R"({"a":"[[[[[[[[{{{{{{"})", 1));
  BOOST_TEST(!nestsDeeperThan(R"({"a":"quote \" then [[[[[[[["})", 1));
  BOOST_TEST(nestsDeeperThan(R"({"a":"ends with a backslash \\"},[[[[)", 3));
  BOOST_TEST(!nestsDeeperThan(R"({"unterminated": "[[[[[[)", 1));
  BOOST_TEST(!nestsDeeperThan(std::string(200, '[') + std::string(200, ']')));
  BOOST_TEST(nestsDeeperThan(std::string(201, '[') + std::string(201, ']')));
}

BOOST_AUTO_TEST_CASE(a_parse_past_the_bound_is_discarded_like_malformed_text) {
  using sluice::wire::parseBounded;
  const std::string deep = "{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  BOOST_TEST(parseBounded(deep).is_discarded());
  const std::string fine = "{\"x\":" + std::string(150, '[') + std::string(150, ']') + "}";
  BOOST_TEST(parseBounded(fine).is_object());
  BOOST_TEST(parseBounded("{not json").is_discarded());
  BOOST_TEST(parseBounded(R"({"a":1})")["a"] == 1);
}

// The gateway's reader gives what nlohmann's parse gives, or fails where it fails.
BOOST_AUTO_TEST_CASE(the_reader_agrees_with_nlohmann_on_every_edge) {
  using sluice::wire::Json;
  using sluice::wire::parseJsonText;
  const std::vector<std::string> texts = {
      // Values and whitespace.
      R"({"a":1,"b":[1,2,{"c":null}],"d":"x"})", " \t\r\n[ ]\n ", "{}", "[]", "0", "-0", "\"s\"", "true", "false",
      "null", "", " ", "nul", "truex", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[1 2]", "{\"a\":1}}", "[",
      "\xEF\xBB\xBF{\"bom\":1}", "\xEF\xBB{}", "{}\0junk", std::string("[1,\0 2]", 7), std::string("\0", 1),
      // Numbers.
      "01", "-", "1.", ".5", "+1", "1e", "1E+2", "1e-2", "-1.5E-3", "18446744073709551615", "18446744073709551616",
      "-9223372036854775808", "-9223372036854775809", "1e308", "1e309", "-1e400", "1e-400", "4.9e-324", "0.1", "1.7976931348623157e308",
      "123456789012345678901234567890", "-0.0", "2.2250738585072011e-308",
      // Strings.
      R"("\"\\\/\b\f\n\r\t")", R"("\u00e9\u20AC\ud83d\ude00")", R"("\u0000")", R"("\ud83d")", R"("\ude00")",
      R"("\ud83d\u0041")", R"("\x")", R"("\u12")", R"("\u12G4")", "\"tab\there\"", "\"caf\xC3\xA9\"", "\"\xC0\xAF\"",
      "\"\xE0\x80\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xF0\x9F\x98\x80\"", "\"\xFF\"", "\"\xE2\x82\"",
      "\"unterminated", "\"\x7F\"",
      // Duplicate keys: the first one's place, the last one's value.
      R"({"a":1,"b":2,"a":3})", R"({"a":{"x":1},"a":[2]})",
  };
  for (const std::string& text : texts) {
    const Json ours = parseJsonText(text);
    const Json theirs = Json::parse(text, nullptr, false);
    BOOST_TEST_CONTEXT("text: " << Json(text).dump(-1, ' ', true, Json::error_handler_t::replace)) {
      BOOST_TEST(ours.is_discarded() == theirs.is_discarded());
      if (!ours.is_discarded() && !theirs.is_discarded()) {
        BOOST_TEST(ours.dump() == theirs.dump());
        BOOST_TEST((ours.type() == theirs.type()));
      }
    }
  }
  const Json typed = parseJsonText(R"([18446744073709551615,-1,1.0,18446744073709551616])");
  BOOST_TEST(typed[0].is_number_unsigned());
  BOOST_TEST(typed[1].is_number_integer());
  BOOST_TEST(!typed[1].is_number_unsigned());
  BOOST_TEST(typed[2].is_number_float());
  BOOST_TEST(typed[3].is_number_float());
  const Json duplicates = parseJsonText(R"({"a":1,"b":2,"a":3})");
  BOOST_TEST(duplicates.dump() == R"({"a":3,"b":2})");
}

// The writer gives nlohmann's dump byte for byte: escapes, non-ASCII kept, broken UTF-8 replaced,
// numbers of each kind.
BOOST_AUTO_TEST_CASE(the_writer_agrees_with_nlohmann_dump) {
  using sluice::wire::dumpJsonText;
  using sluice::wire::Json;
  const auto nlohmann = [](const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); };
  Json value = Json::parse(R"({"a":[1,-2,18446744073709551615,-9223372036854775808,0.1,1e100,-0.0,1.0,true,false,null],
                               "s":"quote \" backslash \\ slash / controls \b\f\n\r\t \u0001 \u001f \u007f caf\u00e9 \ud83d\ude00",
                               "o":{},"e":[],"nested":{"x":[{"y":"z"}]}})");
  value["broken"] = std::string("ok \xC3\x28 then \xFF and \xE2\x82 end");
  value[std::string("key \xF0\x28")] = "v";
  value["nan"] = std::numeric_limits<double>::quiet_NaN();
  value["bytes"] = std::string("\x00\x7f", 2);
  BOOST_TEST(dumpJsonText(value) == nlohmann(value));
  for (const Json& leaf : {Json(nullptr), Json(0), Json(-0.0), Json(3.14159), Json(""), Json(Json::array()), Json(Json::object())}) {
    BOOST_TEST(dumpJsonText(leaf) == nlohmann(leaf));
  }
}

BOOST_AUTO_TEST_SUITE_END()

