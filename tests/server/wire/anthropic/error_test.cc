#include <chrono>

#include <boost/test/unit_test.hpp>

#include "server/wire/codec.h"
#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;

struct Recorded {
  int status;
  std::string body;
};

Recorded recordedError(const std::string& fixture) {
  const Json response = cassette(fixture)["interactions"][0]["response"];
  return Recorded{response["status"]["code"].get<int>(), dumpJsonText(response["parsed_body"])};
}

BOOST_AUTO_TEST_SUITE(error)

BOOST_AUTO_TEST_CASE(recorded_not_found_keeps_status_type_and_message) {
  for (auto [fixture, message] :
       {std::pair{"anthropic/pydantic-ai__test_model_name_suggestion--anthropic.yaml", "model: claude-sonet-4-5"},
        std::pair{"anthropic/pydantic-ai__test_anthropic_count_tokens_error.yaml", "model: claude-does-not-exist"}}) {
    BOOST_TEST_CONTEXT(fixture) {
      const Recorded recorded = recordedError(fixture);
      const ApiError error = decodeError(recorded.status, recorded.body, std::nullopt);
      BOOST_TEST(error.status == 404);
      BOOST_TEST(error.key == "not_found_error");
      BOOST_TEST(error.message == message);
      BOOST_TEST(!error.retry_after_seconds.has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(recorded_invalid_request_keeps_its_message) {
  const Recorded recorded = recordedError("anthropic/pydantic-ai__test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml");
  const ApiError error = decodeError(recorded.status, recorded.body, std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "invalid_request_error");
  BOOST_TEST(error.message == "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.");
}

BOOST_AUTO_TEST_CASE(retry_after_header_is_copied) {
  const std::string body = R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}})";
  const auto now = std::chrono::sys_days(std::chrono::year(2015) / 10 / 21) + std::chrono::hours(7) + std::chrono::minutes(27);
  const auto read = [&](std::string_view header) {
    return wire::decodeError(catalog::Wire::Anthropic, 429, body, header, now);
  };
  ApiError error = read("30");
  BOOST_TEST(error.status == 429);
  BOOST_TEST(error.key == "rate_limit_error");
  BOOST_TEST(error.retry_after_seconds.value() == 30);
  BOOST_TEST(read(" 1.5 ").retry_after_seconds.value() == 2);
  BOOST_TEST(read("Wed, 21 Oct 2015 07:28:00 GMT").retry_after_seconds.value() == 60);
  BOOST_TEST(!read("-3").retry_after_seconds.has_value());
  BOOST_TEST(decodeError(429, body, 4).retry_after_seconds.value() == 4);
}

BOOST_AUTO_TEST_CASE(overloaded_529_keeps_its_status) {
  const ApiError error = decodeError(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", std::nullopt);
  BOOST_TEST(error.status == 529);
  BOOST_TEST(error.key == "overloaded_error");
  BOOST_TEST(error.message == "Overloaded");
}

BOOST_AUTO_TEST_CASE(non_json_error_page_gets_a_key_from_the_status) {
  const ApiError error = decodeError(413, "<html><body>413 Request Entity Too Large</body></html>\n", std::nullopt);
  BOOST_TEST(error.status == 413);
  BOOST_TEST(error.key == "request_too_large");
  BOOST_TEST(error.message.find("413 Request Entity Too Large") != std::string::npos);
  const ApiError empty = decodeError(502, "", std::nullopt);
  BOOST_TEST(empty.key == "api_error");
  BOOST_TEST(empty.message == "the provider answered HTTP 502");
}

BOOST_AUTO_TEST_CASE(long_non_utf8_page_is_cut_and_stays_renderable) {
  std::string page(2000, 'x');
  page[600] = static_cast<char>(0xC3);  // a cut or broken multi-byte sequence
  page[3] = static_cast<char>(0xFF);
  const ApiError error = decodeError(500, page, std::nullopt);
  BOOST_TEST(error.message.size() < 700u);
  BOOST_CHECK_NO_THROW(renderError(catalog::Wire::Anthropic, error, "req"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
