#include "server/wire/mcp/jsonrpc.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::wire;
using namespace sluice::wire::mcp;

namespace {

Json parse(std::string_view text) { return Json::parse(text); }

}  // namespace

BOOST_AUTO_TEST_SUITE(mcp_jsonrpc)

BOOST_AUTO_TEST_CASE(requests_notifications_and_responses_are_told_apart) {
  auto call = readMessage(parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})"));
  BOOST_REQUIRE(call.has_value());
  BOOST_TEST((call->kind == Kind::Request));
  BOOST_TEST(call->id == Json(7));
  BOOST_TEST(call->target == "echo");
  BOOST_TEST(call->audited());
  BOOST_TEST(call->isToolCall());

  auto read = readMessage(parse(R"({"jsonrpc":"2.0","id":"r1","method":"resources/read","params":{"uri":"file:///a.md"}})"));
  BOOST_REQUIRE(read.has_value());
  BOOST_TEST(read->target == "file:///a.md");
  BOOST_TEST(read->audited());

  auto list = readMessage(parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"));
  BOOST_REQUIRE(list.has_value());
  BOOST_TEST(!list->audited());

  auto note = readMessage(parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  BOOST_REQUIRE(note.has_value());
  BOOST_TEST((note->kind == Kind::Notification));
  BOOST_TEST(note->id.is_null());

  auto answer = readMessage(parse(R"({"jsonrpc":"2.0","id":3,"result":{}})"));
  BOOST_REQUIRE(answer.has_value());
  BOOST_TEST((answer->kind == Kind::Response));
}

BOOST_AUTO_TEST_CASE(what_is_not_one_message_is_refused_with_the_right_key) {
  struct Case {
    std::string text;
    std::string key;
  };
  const std::vector<Case> cases = {
      {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", "invalid_jsonrpc"},
      {R"("ping")", "invalid_jsonrpc"},
      {R"({"id":1,"method":"ping"})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1,"method":42})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1,"method":""})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1})", "invalid_jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})", "invalid_params"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}})", "invalid_params"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}})", "invalid_params"},
      {R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"name":"x"}})", "invalid_params"},
      {R"({"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":")" + std::string(300, 'p') + R"("}})",
       "invalid_params"},
      {R"({"jsonrpc":"2.0","id":")" + std::string(300, 'i') + R"(","method":"ping"})", "invalid_jsonrpc"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.text.substr(0, 80)) {
      auto message = readMessage(parse(c.text));
      BOOST_REQUIRE(!message.has_value());
      BOOST_TEST(message.error().key == c.key);
      BOOST_TEST(message.error().status == 400);
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_are_jsonrpc_error_objects_with_the_gateways_key_in_data) {
  const Json refused = errorMessage(Json(7), ApiError::make(403, "access_denied", "authz denied [mcp_tool/x/y]"), "req-1");
  BOOST_TEST(refused["jsonrpc"] == "2.0");
  BOOST_TEST(refused["id"] == 7);
  BOOST_TEST(refused["error"]["code"] == -32001);
  BOOST_TEST(refused["error"]["message"] == "authz denied [mcp_tool/x/y]");
  BOOST_TEST(refused["error"]["data"]["error_key"] == "access_denied");
  BOOST_TEST(refused["error"]["data"]["status"] == 403);
  BOOST_TEST(refused["error"]["data"]["request_id"] == "req-1");
  BOOST_TEST(errorMessage(Json(), ApiError::make(400, "invalid_json", "x"), "")["error"]["code"] == -32700);
  BOOST_TEST(errorMessage(Json(), ApiError::make(400, "invalid_params", "x"), "")["error"]["code"] == -32602);
  BOOST_TEST(errorMessage(Json(), ApiError::make(404, "mcp_session_not_found", "x"), "")["error"]["code"] == -32002);
  BOOST_TEST(errorMessage(Json(), ApiError::make(429, "quota_exceeded", "x"), "")["error"]["code"] == -32003);
  BOOST_TEST(errorMessage(Json(), ApiError::make(502, "upstream_error", "x"), "")["error"]["code"] == -32000);
  BOOST_TEST(errorMessage(Json(), ApiError::make(400, "x", "y"), "")["id"].is_null());
}

BOOST_AUTO_TEST_CASE(a_listing_keeps_only_the_tools_allowed_and_drops_nameless_ones) {
  Json result = parse(R"({"tools":[{"name":"echo"},{"name":"delete_repo"},{"description":"no name"},"junk",
                                    {"name":"add"}],"nextCursor":"c2"})");
  const size_t removed = keepTools(result, [](std::string_view name) { return !name.starts_with("delete_"); });
  BOOST_TEST(removed == 3u);
  BOOST_TEST(result["tools"].size() == 2u);
  BOOST_TEST(result["tools"][0]["name"] == "echo");
  BOOST_TEST(result["tools"][1]["name"] == "add");
  BOOST_TEST(result["nextCursor"] == "c2");
  Json other = parse(R"({"resources":[]})");
  BOOST_TEST(keepTools(other, [](std::string_view) { return false; }) == 0u);
}

BOOST_AUTO_TEST_CASE(strings_are_rewritten_at_any_depth_and_keys_are_not) {
  Json value = parse(R"({"a":"x","b":["x",{"x":"x"}],"n":1})");
  rewriteStrings(value, [](std::string& text) { text += "!"; });
  BOOST_TEST(value.dump() == R"({"a":"x!","b":["x!",{"x":"x!"}],"n":1})");
}

BOOST_AUTO_TEST_CASE(session_ids_are_visible_ascii_and_bounded) {
  BOOST_TEST(validSessionId("1868a90c-2b8f-4f0e-9a63-6b9c1f6d2d11"));
  BOOST_TEST(!validSessionId(""));
  BOOST_TEST(!validSessionId("has space"));
  BOOST_TEST(!validSessionId("line\nbreak"));
  BOOST_TEST(!validSessionId(std::string(kMaxSessionIdBytes + 1, 'a')));
  BOOST_TEST(validSessionId(std::string(kMaxSessionIdBytes, 'a')));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(mcp_sse_events)

BOOST_AUTO_TEST_CASE(events_are_split_at_either_blank_line) {
  size_t separator = 0;
  BOOST_TEST(eventEnd("data: a\n\ndata: b", separator) == 7u);
  BOOST_TEST(separator == 2u);
  BOOST_TEST(eventEnd("data: a\r\n\r\ndata: b\n\n", separator) == 7u);
  BOOST_TEST(separator == 4u);
  BOOST_TEST(eventEnd("data: a\n", separator) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_event_keeps_its_fields_and_has_its_message_rewritten) {
  const auto upper = [](Json& message) {
    rewriteStrings(message, [](std::string& text) {
      for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    });
  };
  BOOST_TEST(rewriteEvent("event: message\r\nid: 7\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"x\":\"ab\"}\r\nretry: 5", upper) ==
             "event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"x\":\"AB\"}\nretry: 5\n\n");
  BOOST_TEST(rewriteEvent(": keepalive", upper) == ": keepalive\n\n");
  BOOST_TEST(rewriteEvent("id: 1\ndata: not json\ndata: at all", upper) == "id: 1\ndata: not json\ndata: at all\n\n");
  BOOST_TEST(rewriteEvent("", upper) == "");
}

BOOST_AUTO_TEST_SUITE_END()
