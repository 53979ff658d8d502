#include "tools/mock-provider/responses_render.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"

using namespace sluice::mock;
using namespace sluice::mock::testing;
using nlohmann::json;

namespace {
const std::string kAll = R"({"model":"gpt-test","input":"use a tool","reasoning":{"effort":"low"},
  "tools":[{"type":"function","name":"multiply","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}]})";
}

BOOST_AUTO_TEST_SUITE(responses_render)

BOOST_AUTO_TEST_CASE(text_stream_numbers_events_from_zero_and_ends_with_completed) {
  const Answer answer = plan(Wire::OpenAiResponses, R"({"model":"gpt-test","input":"Hello"})");
  const auto events = renderResponsesStream(answer);
  const auto data = parseData(events);
  BOOST_TEST_REQUIRE(data.size() == events.size());  // no [DONE]
  for (std::size_t i = 0; i < data.size(); ++i) {
    BOOST_TEST(data[i]["sequence_number"] == i);
    BOOST_TEST(events[i].name == data[i]["type"].get<std::string>());
  }
  BOOST_TEST(events[0].name == "response.created");
  BOOST_TEST(data[0]["response"]["status"] == "in_progress");
  BOOST_TEST(data[0]["response"]["usage"].is_null());
  BOOST_TEST(events[1].name == "response.in_progress");
  BOOST_TEST(events[2].name == "response.output_item.added");
  BOOST_TEST(events[3].name == "response.content_part.added");
  BOOST_TEST(events[4].name == "response.output_text.delta");
  BOOST_TEST(events[events.size() - 4].name == "response.output_text.done");
  BOOST_TEST(events[events.size() - 3].name == "response.content_part.done");
  BOOST_TEST(events[events.size() - 2].name == "response.output_item.done");
  BOOST_TEST(events.back().name == "response.completed");
  std::string text;
  for (const auto& event : data)
    if (event["type"] == "response.output_text.delta") text += event["delta"].get<std::string>();
  BOOST_TEST(text == answer.text);
  const json& done = data.back()["response"];
  BOOST_TEST(done["status"] == "completed");
  BOOST_TEST(done["output"][0]["content"][0]["text"] == answer.text);
  BOOST_TEST(done["usage"]["input_tokens"] == 2);
  BOOST_TEST(done["usage"]["output_tokens"] == answer.usage.output_tokens);
  BOOST_TEST(done["usage"]["total_tokens"] == 2 + answer.usage.output_tokens);
}

BOOST_AUTO_TEST_CASE(reasoning_and_function_call_items_stream_in_order) {
  const Answer answer = plan(Wire::OpenAiResponses, kAll);
  const auto data = parseData(renderResponsesStream(answer));
  std::vector<std::string> added;
  std::string summary;
  std::string arguments;
  for (const auto& event : data) {
    if (event["type"] == "response.output_item.added") added.push_back(event["item"]["type"]);
    if (event["type"] == "response.reasoning_summary_text.delta") summary += event["delta"].get<std::string>();
    if (event["type"] == "response.function_call_arguments.delta") {
      BOOST_TEST(event["item_id"] == "fc_mock_7");
      BOOST_TEST(event["output_index"] == 1);
      arguments += event["delta"].get<std::string>();
    }
  }
  BOOST_TEST(added == (std::vector<std::string>{"reasoning", "function_call"}), boost::test_tools::per_element());
  BOOST_TEST(summary == *answer.thinking);
  BOOST_TEST(json::parse(arguments) == json::parse(R"({"a":1})"));
  const json& output = data.back()["response"]["output"];
  BOOST_TEST(output[0]["encrypted_content"] == answer.signature);
  BOOST_TEST(output[0]["summary"][0]["type"] == "summary_text");
  BOOST_TEST(output[1]["call_id"] == "call_mock_7");
  BOOST_TEST(output[1]["name"] == "multiply");
  BOOST_TEST(data.back()["response"]["usage"]["output_tokens_details"]["reasoning_tokens"] == answer.usage.reasoning);
}

BOOST_AUTO_TEST_CASE(a_length_finish_ends_with_incomplete) {
  const Answer answer = plan(Wire::OpenAiResponses, R"({"model":"m","input":"hi"})", R"({"finish":"length"})");
  const auto events = renderResponsesStream(answer);
  BOOST_TEST(events.back().name == "response.incomplete");
  const json body = json::parse(renderResponse(answer));
  BOOST_TEST(body["status"] == "incomplete");
  BOOST_TEST(body["incomplete_details"]["reason"] == "max_output_tokens");
}

BOOST_AUTO_TEST_CASE(response_body_has_the_output_items) {
  const json body = json::parse(renderResponse(plan(Wire::OpenAiResponses, kAll)));
  BOOST_TEST(body["object"] == "response");
  BOOST_TEST(body["id"] == "resp_mock_7");
  BOOST_TEST(body["status"] == "completed");
  BOOST_TEST(body["output"].size() == 2u);
  BOOST_TEST(body["output"][1]["type"] == "function_call");
  BOOST_TEST(body["output"][1]["arguments"] == R"({"a":1})");
}

BOOST_AUTO_TEST_SUITE_END()
