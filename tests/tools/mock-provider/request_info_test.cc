#include "tools/mock-provider/request_info.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"
#include "tools/mock-provider/auth_check.h"

using namespace sluice::mock;
using sluice::mock::testing::inspect;
using sluice::mock::testing::routeFor;

namespace {

ReceivedRequest withHeaders(HeaderList headers, std::string query = {}) {
  ReceivedRequest request;
  request.method = "POST";
  request.headers = std::move(headers);
  request.query = std::move(query);
  return request;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_info)

BOOST_AUTO_TEST_CASE(rejects_what_each_provider_rejects) {
  const Route anthropic = routeFor(Wire::Anthropic);
  BOOST_TEST(inspectRequest(anthropic, "not json").error().status == 400);
  BOOST_TEST(inspectRequest(anthropic, R"({"max_tokens":5,"messages":[]})").error().message == "model: Field required");
  BOOST_TEST(inspectRequest(anthropic, R"({"model":"m","messages":[]})").error().message == "max_tokens: Field required");
  BOOST_TEST(inspectRequest(anthropic, R"({"model":"m","max_tokens":5})").error().type == "invalid_request_error");
  // count_tokens has no max_tokens.
  BOOST_TEST(inspectRequest(*matchRoute("/v1/messages/count_tokens"), R"({"model":"m","messages":[]})").has_value());

  const auto chat = inspectRequest(routeFor(Wire::OpenAiChat), R"({"model":"m"})");
  BOOST_TEST(*chat.error().param == "messages");
  BOOST_TEST(inspectRequest(routeFor(Wire::OpenAiChat), "[]").error().message.find("could not parse") != std::string::npos);
  BOOST_TEST(inspectRequest(routeFor(Wire::OpenAiResponses), R"({"input":"hi"})").error().status == 400);
  BOOST_TEST(inspectRequest(routeFor(Wire::Gemini), R"({})").error().type == "INVALID_ARGUMENT");
}

BOOST_AUTO_TEST_CASE(checks_the_auth_header_of_each_wire) {
  const Route anthropic = routeFor(Wire::Anthropic);
  BOOST_TEST(checkAuth(anthropic, withHeaders({}), std::nullopt)->status == 401);
  BOOST_TEST(checkAuth(anthropic, withHeaders({{"X-Api-Key", "k"}}), std::nullopt)->message.find("anthropic-version") !=
             std::string::npos);
  BOOST_TEST(!checkAuth(anthropic, withHeaders({{"x-api-key", "k"}, {"anthropic-version", "2023-06-01"}}), std::nullopt));
  BOOST_TEST(checkAuth(anthropic, withHeaders({{"x-api-key", "k"}, {"anthropic-version", "v"}}), "other")->type ==
             "authentication_error");
  // An OpenAI-style bearer does not authenticate on the Anthropic wire.
  BOOST_TEST(checkAuth(anthropic, withHeaders({{"authorization", "Bearer k"}, {"anthropic-version", "v"}}), std::nullopt)
                 ->status == 401);

  const Route chat = routeFor(Wire::OpenAiChat);
  BOOST_TEST(checkAuth(chat, withHeaders({{"x-api-key", "k"}}), std::nullopt)->status == 401);
  BOOST_TEST(checkAuth(chat, withHeaders({{"Authorization", "Basic k"}}), std::nullopt)->status == 401);
  BOOST_TEST(!checkAuth(chat, withHeaders({{"Authorization", "Bearer k"}}), std::nullopt));
  BOOST_TEST(*checkAuth(chat, withHeaders({{"Authorization", "Bearer k"}}), "x")->code == "invalid_api_key");

  const Route gemini = routeFor(Wire::Gemini);
  BOOST_TEST(checkAuth(gemini, withHeaders({}), std::nullopt)->type == "PERMISSION_DENIED");
  BOOST_TEST(checkAuth(gemini, withHeaders({{"Authorization", "Bearer k"}}), std::nullopt)->status == 403);
  BOOST_TEST(!checkAuth(gemini, withHeaders({{"x-goog-api-key", "k"}}), std::nullopt));
  BOOST_TEST(!checkAuth(gemini, withHeaders({}, "alt=sse&key=k"), std::nullopt));
  BOOST_TEST(*checkAuth(gemini, withHeaders({{"x-goog-api-key", "k"}}), "other")->reason == "API_KEY_INVALID");
  const Route vertex = *matchRoute("/v1/projects/p/locations/l/publishers/google/models/g:generateContent");
  BOOST_TEST(!checkAuth(vertex, withHeaders({{"Authorization", "Bearer token"}}), std::nullopt));
}

BOOST_AUTO_TEST_CASE(collects_prompt_text_from_every_turn_and_the_system) {
  const auto anthropic = inspect(Wire::Anthropic, R"({"model":"m","max_tokens":5,"system":[{"type":"text","text":"Be brief."}],
    "messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"text","text":"Yo"}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"15"},{"type":"text","text":"ok"}]}]})");
  BOOST_TEST(anthropic.prompt_text == "Be brief.HiYo15ok");
  BOOST_TEST(anthropic.last_turn_is_tool_result);
  BOOST_TEST(anthropic.last_user_text == "");

  const auto chat = inspect(Wire::OpenAiChat, R"({"model":"m","messages":[{"role":"system","content":"Be brief."},
    {"role":"user","content":[{"type":"text","text":"Hi"}]}],"stream":true,"stream_options":{"include_usage":true}})");
  BOOST_TEST(chat.prompt_text == "Be brief.Hi");
  BOOST_TEST(chat.last_user_text == "Hi");
  BOOST_TEST(chat.stream);
  BOOST_TEST(chat.include_usage);

  const auto responses = inspect(Wire::OpenAiResponses, R"({"model":"m","instructions":"Be brief.",
    "input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},{"type":"function_call_output","call_id":"c","output":"15"}]})");
  BOOST_TEST(responses.prompt_text == "Be brief.Hi15");
  BOOST_TEST(responses.last_turn_is_tool_result);

  const auto gemini = inspect(Wire::Gemini, R"({"system_instruction":{"parts":[{"text":"Be brief."}]},
    "contents":[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
    {"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"15"}}}]}]})");
  BOOST_TEST(gemini.prompt_text == "Be brief.Hi15");
  BOOST_TEST(gemini.last_turn_is_tool_result);
  BOOST_TEST(gemini.model == "gemini-test");
  BOOST_TEST(gemini.stream);
}

BOOST_AUTO_TEST_CASE(reads_tools_tool_choice_and_thinking) {
  const auto anthropic = inspect(Wire::Anthropic, R"({"model":"m","max_tokens":5,"messages":[],
    "tools":[{"type":"web_search_20250305","name":"web_search"},{"name":"get_weather","input_schema":{"type":"object"}}],
    "tool_choice":{"type":"tool","name":"get_weather"},"thinking":{"type":"enabled","budget_tokens":1024}})");
  BOOST_TEST_REQUIRE(anthropic.tools.size() == 1u);
  BOOST_TEST(anthropic.tools[0].name == "get_weather");
  BOOST_TEST((anthropic.tool_choice == ToolChoice::Named));
  BOOST_TEST(anthropic.tool_choice_name == "get_weather");
  BOOST_TEST(anthropic.thinking_requested);

  const auto chat = inspect(Wire::OpenAiChat, R"({"model":"m","messages":[],"reasoning_effort":"low","tool_choice":"required",
    "tools":[{"type":"function","function":{"name":"multiply","parameters":{"type":"object"}}}]})");
  BOOST_TEST(chat.tools[0].name == "multiply");
  BOOST_TEST((chat.tool_choice == ToolChoice::Required));
  BOOST_TEST(chat.thinking_requested);

  const auto responses = inspect(Wire::OpenAiResponses, R"({"model":"m","input":"hi","reasoning":{"effort":"low"},
    "tool_choice":{"type":"function","name":"multiply"},"tools":[{"type":"function","name":"multiply","parameters":{}}]})");
  BOOST_TEST(responses.tool_choice_name == "multiply");
  BOOST_TEST(responses.thinking_requested);
  BOOST_TEST(responses.last_user_text == "hi");

  const auto gemini = inspect(Wire::Gemini, R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"multiply",
    "parametersJsonSchema":{"type":"object"}}]}],"toolConfig":{"functionCallingConfig":{"mode":"NONE"}},
    "generationConfig":{"thinkingConfig":{"includeThoughts":true}}})");
  BOOST_TEST(gemini.tools[0].name == "multiply");
  BOOST_TEST((gemini.tool_choice == ToolChoice::None));
  BOOST_TEST(gemini.thinking_requested);
}

BOOST_AUTO_TEST_SUITE_END()
