#include "catalog/glob.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog {
namespace {

BOOST_AUTO_TEST_SUITE(glob)

BOOST_AUTO_TEST_CASE(only_star_and_question_mark_make_a_pattern) {
  BOOST_TEST(isGlob("claude-*"));
  BOOST_TEST(isGlob("gpt-?"));
  BOOST_TEST(!isGlob("claude-sonnet-5-5"));
  BOOST_TEST(!isGlob("a[1]"));
}

BOOST_AUTO_TEST_CASE(star_matches_any_run_including_none) {
  BOOST_TEST(globMatch("claude-*", "claude-sonnet-5-5"));
  BOOST_TEST(globMatch("claude-*", "claude-"));
  BOOST_TEST(globMatch("*", ""));
  BOOST_TEST(globMatch("*-flash", "deepseek-flash"));
  BOOST_TEST(globMatch("c*-5-*", "claude-haiku-5-5"));
  BOOST_TEST(!globMatch("claude-*", "gpt-5-5"));
  BOOST_TEST(!globMatch("claude-*", "xclaude-a"));
}

BOOST_AUTO_TEST_CASE(question_mark_matches_exactly_one_character) {
  BOOST_TEST(globMatch("gpt-?-5", "gpt-5-5"));
  BOOST_TEST(!globMatch("gpt-?-5", "gpt--5"));
  BOOST_TEST(!globMatch("gpt-?", "gpt-55"));
}

BOOST_AUTO_TEST_CASE(the_whole_text_must_match) {
  BOOST_TEST(globMatch("claude-sonnet-5-5", "claude-sonnet-5-5"));
  BOOST_TEST(!globMatch("claude", "claude-sonnet"));
  BOOST_TEST(!globMatch("sonnet", "claude-sonnet"));
}

BOOST_AUTO_TEST_CASE(several_stars_backtrack_correctly) {
  BOOST_TEST(globMatch("*a*b*c", "xxaxxbxxbxxc"));
  BOOST_TEST(!globMatch("*a*b*c", "xxaxxbxxbxxd"));
  BOOST_TEST(globMatch("**", "anything"));
  BOOST_TEST(!globMatch(std::string(30, '*') + "b", std::string(200, 'a')));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
