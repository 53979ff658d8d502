#include "server/audit/copy_text.h"

#include <boost/test/unit_test.hpp>

using namespace sluice;

BOOST_AUTO_TEST_SUITE(copy_text)

BOOST_AUTO_TEST_CASE(escapes_come_back_undone_and_what_postgres_cannot_store_is_cleaned) {
  std::string out;
  const char raw[] = "a\\b\tc\nd\re\0f \xff g";
  audit::appendCopyEscaped(out, std::string_view(raw, sizeof raw - 1));
  BOOST_TEST(out == "a\\\\b\\tc\\nd\\ref \xEF\xBF\xBD g");
  BOOST_TEST(audit::unescapeCopyField(out) == "a\\b\tc\nd\ref \xEF\xBF\xBD g");
  std::string empty;
  audit::appendCopyEscaped(empty, "");
  BOOST_TEST(empty.empty());  // never \N: NULL is the caller's
}

BOOST_AUTO_TEST_CASE(a_line_splits_at_every_tab_without_its_newline) {
  const auto fields = audit::splitCopyLine("a\t\\N\t\tb\n");
  BOOST_REQUIRE(fields.size() == 4u);
  BOOST_TEST(fields[0] == "a");
  BOOST_TEST(fields[1] == "\\N");
  BOOST_TEST(fields[2] == "");
  BOOST_TEST(fields[3] == "b");
  BOOST_TEST(audit::splitCopyLine("").size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
