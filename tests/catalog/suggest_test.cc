#include "catalog/suggest.h"

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using Names = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(suggest)

BOOST_AUTO_TEST_CASE(a_near_miss_suggests_the_nearest_names_first) {
  const Names ids = {"claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5", "gpt-5-5"};
  BOOST_TEST(nearestNames("claude-sonet-5-5", ids) == Names{"claude-sonnet-5-5"}, boost::test_tools::per_element());
  BOOST_TEST(nearestNames("user", Names{"users", "keys", "usage"}) == Names{"users"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_fragment_suggests_the_names_that_contain_it) {
  const Names ids = {"claude-opus-5-5", "claude-sonnet-5-5", "gpt-5-5"};
  BOOST_TEST(nearestNames("sonnet", ids) == Names{"claude-sonnet-5-5"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nothing_near_suggests_nothing_and_the_limit_holds) {
  BOOST_TEST(nearestNames("whisper-1", Names{"claude-sonnet-5-5", "gpt-5-5"}).empty());
  BOOST_TEST(nearestNames("", Names{"a"}).empty());
  BOOST_TEST(nearestNames("ab", Names{"ab", "ac", "ad", "ae", "af"}, 2) == (Names{"ac", "ad"}),
             boost::test_tools::per_element());
  BOOST_TEST(didYouMean({}).empty());
  BOOST_TEST(didYouMean({"a", "b", "c"}) == " (did you mean 'a', 'b' or 'c'?)");
}

BOOST_AUTO_TEST_CASE(overlong_text_is_never_compared) {
  const std::string long_text(kMaxSuggestedLength + 1, 'a');
  BOOST_TEST(nearestNames(long_text, Names{long_text.substr(1)}).empty());
  BOOST_TEST(closestName(long_text, std::vector<std::string_view>{"a"}, 1000).empty());
}

BOOST_AUTO_TEST_CASE(served_ids_are_the_models_then_the_aliases_never_a_retired_id) {
  auto catalog = testing::compileClean(testing::baselineSources());
  const Names ids = servedIds(*catalog);
  const Names expected = {"claude-sonnet-5-5", "claude-haiku-5", "deepseek-v4-pro", "deepseek-flash",
                          "go-deepseek-v4-pro"};
  BOOST_TEST(ids == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
