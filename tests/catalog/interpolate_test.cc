#include "catalog/interpolate.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog {
namespace {

const Environment kEnv = {{"HOST", "mock.local"}, {"PORT", "8089"}, {"EMPTY", ""}};

std::string ok(std::string_view text) {
  auto result = interpolate(text, kEnv);
  BOOST_REQUIRE_MESSAGE(result.has_value(), "interpolate failed: " << result.error());
  return *result;
}

std::string failure(std::string_view text) {
  auto result = interpolate(text, kEnv);
  BOOST_REQUIRE_MESSAGE(!result.has_value(), "interpolate should fail, gave " << *result);
  return result.error();
}

BOOST_AUTO_TEST_SUITE(interpolate)

BOOST_AUTO_TEST_CASE(text_without_references_is_unchanged) {
  BOOST_TEST(ok("https://api.anthropic.com") == "https://api.anthropic.com");
  BOOST_TEST(ok("") == "");
  BOOST_TEST(ok("costs $5 or $ {x}") == "costs $5 or $ {x}");
}

BOOST_AUTO_TEST_CASE(set_variables_are_substituted_anywhere_in_the_string) {
  BOOST_TEST(ok("http://${HOST}:${PORT}/v1") == "http://mock.local:8089/v1");
  BOOST_TEST(ok("${HOST}") == "mock.local");
}

BOOST_AUTO_TEST_CASE(default_is_used_when_the_variable_is_unset_or_empty) {
  BOOST_TEST(ok("${MISSING:-https://api.anthropic.com}") == "https://api.anthropic.com");
  BOOST_TEST(ok("${EMPTY:-fallback}") == "fallback");
  BOOST_TEST(ok("${HOST:-fallback}") == "mock.local");
  BOOST_TEST(ok("${MISSING:-}") == "");
}

BOOST_AUTO_TEST_CASE(default_may_contain_colons_and_dashes) {
  BOOST_TEST(ok("${MISSING:-http://a:1/b-c}") == "http://a:1/b-c");
}

BOOST_AUTO_TEST_CASE(set_but_empty_variable_without_default_is_empty) {
  BOOST_TEST(ok("[${EMPTY}]") == "[]");
}

BOOST_AUTO_TEST_CASE(unset_variable_without_default_is_an_error_naming_it) {
  std::string message = failure("https://${NOPE}/v1");
  BOOST_TEST(message.find("environment variable NOPE is not set") != std::string::npos);
  BOOST_TEST(message.find("${NOPE:-default}") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(double_dollar_escapes_a_literal_reference) {
  BOOST_TEST(ok("$${HOST}") == "${HOST}");
  BOOST_TEST(ok("a$${NOPE}b") == "a${NOPE}b");
}

BOOST_AUTO_TEST_CASE(unterminated_reference_is_an_error) {
  BOOST_TEST(failure("${HOST").find("unterminated") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_variable_names_are_errors) {
  BOOST_TEST(failure("${}").find("invalid variable name") != std::string::npos);
  BOOST_TEST(failure("${1ABC}").find("invalid variable name '1ABC'") != std::string::npos);
  BOOST_TEST(failure("${A B}").find("invalid variable name") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(substituted_values_are_not_interpolated_again) {
  Environment env = {{"A", "${B}"}, {"B", "no"}};
  BOOST_TEST(*catalog::interpolate("${A}", env) == "${B}");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
