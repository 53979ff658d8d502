#include "tools/mock-provider/route.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::mock;

BOOST_AUTO_TEST_SUITE(route)

BOOST_AUTO_TEST_CASE(matches_each_provider_path_with_or_without_a_prefix) {
  BOOST_TEST((matchRoute("/v1/messages")->endpoint == Endpoint::Messages));
  BOOST_TEST((matchRoute("/anthropic/v1/messages")->endpoint == Endpoint::Messages));
  BOOST_TEST((matchRoute("/v1/messages/count_tokens")->endpoint == Endpoint::CountTokens));
  BOOST_TEST((matchRoute("/v1/chat/completions")->wire == Wire::OpenAiChat));
  BOOST_TEST((matchRoute("/openai/v1/chat/completions")->wire == Wire::OpenAiChat));
  BOOST_TEST((matchRoute("/v1/responses")->wire == Wire::OpenAiResponses));
  BOOST_TEST((matchRoute("/v1/responses/")->wire == Wire::OpenAiResponses));
}

BOOST_AUTO_TEST_CASE(reads_the_gemini_model_and_method_from_the_path) {
  auto generate = matchRoute("/v1beta/models/gemini-2.5-flash:generateContent");
  BOOST_TEST_REQUIRE(generate.has_value());
  BOOST_TEST((generate->endpoint == Endpoint::GenerateContent));
  BOOST_TEST(generate->model == "gemini-2.5-flash");
  BOOST_TEST(!generate->vertex);
  BOOST_TEST((matchRoute("/gemini/v1beta/models/g:streamGenerateContent")->endpoint == Endpoint::StreamGenerateContent));
  BOOST_TEST((matchRoute("/v1beta/models/g:countTokens")->endpoint == Endpoint::GeminiCountTokens));
  auto vertex = matchRoute("/v1/projects/p/locations/us/publishers/google/models/gemini-x:generateContent");
  BOOST_TEST_REQUIRE(vertex.has_value());
  BOOST_TEST(vertex->vertex);
  BOOST_TEST(vertex->model == "gemini-x");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_paths) {
  BOOST_TEST(!matchRoute("/").has_value());
  BOOST_TEST(!matchRoute("/v1/models").has_value());
  BOOST_TEST(!matchRoute("/v1beta/models/g:embedContent").has_value());
  BOOST_TEST(!matchRoute("/v1beta/models/:generateContent").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
