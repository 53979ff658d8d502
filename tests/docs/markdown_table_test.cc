#define BOOST_TEST_MODULE docs_tests
#include "tests/docs/markdown_table.h"

#include <boost/test/unit_test.hpp>

namespace sluice::docs {
namespace {

using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(markdown_table)

BOOST_AUTO_TEST_CASE(reads_the_body_rows_of_the_first_table_after_the_marker) {
  const std::string text =
      "| not | this |\n|---|---|\n| x | y |\n\n"
      "<!-- marker -->\nSome prose first.\n\n"
      "| model | deployments |\n|---|---|\n"
      "| `a` | `p/e`, then `q/f` |\n"
      "|  `b`  | `a \\| b` |\n"
      "After the table.\n| z | z |\n";
  const auto rows = tableAfter(text, "<!-- marker -->");
  BOOST_REQUIRE(rows.has_value());
  BOOST_REQUIRE_EQUAL(rows->size(), 2u);
  BOOST_TEST((*rows)[0] == (Strings{"`a`", "`p/e`, then `q/f`"}), boost::test_tools::per_element());
  BOOST_TEST((*rows)[1] == (Strings{"`b`", "`a | b`"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_missing_marker_or_a_heading_before_any_table_is_no_table) {
  BOOST_TEST(!tableAfter("| a |\n|---|\n| b |\n", "<!-- marker -->").has_value());
  BOOST_TEST(!tableAfter("<!-- marker -->\n\n## Next\n| a |\n|---|\n| b |\n", "<!-- marker -->").has_value());
  BOOST_TEST(!tableAfter("<!-- marker -->\nno table at all\n", "<!-- marker -->").has_value());
}

BOOST_AUTO_TEST_CASE(code_spans_come_out_in_order_and_the_first_word_without_backticks) {
  BOOST_TEST(codeSpans("`deepseek/api`, then `opencode-go/chat` (own key)") ==
                 (Strings{"deepseek/api", "opencode-go/chat"}),
             boost::test_tools::per_element());
  BOOST_TEST(codeSpans("an unclosed `span").empty());
  BOOST_TEST(firstWord("  chat (the default model)") == "chat");
  BOOST_TEST(firstWord("alias of `deepseek-v4-pro`") == "alias");
  BOOST_TEST(firstWord("`claude-opus-5-5`") == "claude-opus-5-5");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::docs
