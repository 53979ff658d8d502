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

BOOST_AUTO_TEST_CASE(row3_secret_and_master_key_variables_are_refused_with_or_without_default) {
  const Environment env = {{"SLUICE_MASTER_KEY", "master-secret"}, {"API_KEY", "sk-secret"}, {"HOST", "h"}};
  const VariablePolicy policy{{"API_KEY"}, std::nullopt};
  for (std::string_view text : {"${SLUICE_MASTER_KEY}", "x${SLUICE_MASTER_KEY_FILE:-y}", "${API_KEY}", "${API_KEY:-d}"}) {
    auto result = catalog::interpolate(text, env, policy);
    BOOST_REQUIRE_MESSAGE(!result.has_value(), text << " gave " << *result);
    BOOST_TEST(result.error().find("used outside a credential") != std::string::npos);
    BOOST_TEST(result.error().find("secret") != std::string::npos);
    BOOST_TEST(result.error().find("master-secret") == std::string::npos);
    BOOST_TEST(result.error().find("sk-secret") == std::string::npos);
  }
  BOOST_TEST(*catalog::interpolate("${HOST}", env, policy) == "h");
}

BOOST_AUTO_TEST_CASE(allowed_names_limit_what_may_be_read_and_substitutions_are_reported) {
  const Environment env = {{"HOST", "h"}, {"PORT", "1"}};
  const VariablePolicy policy{{}, std::set<std::string>{"HOST", "MISSING"}};
  std::vector<Substitution> substituted;
  BOOST_TEST(*catalog::interpolate("${HOST}:${MISSING:-2}", env, policy, &substituted) == "h:2");
  BOOST_REQUIRE(substituted.size() == 1u);
  BOOST_TEST(substituted[0].name == "HOST");
  BOOST_TEST(substituted[0].value == "h");
  auto refused = catalog::interpolate("${PORT:-9}", env, policy);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().find("variable PORT is not used by the catalog files on disk") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(variables_referenced_lists_well_formed_names) {
  BOOST_TEST(variablesReferenced("a ${X} $${Y} ${Z:-d} ${1bad} ${W") == (std::set<std::string>{"X", "Z"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
