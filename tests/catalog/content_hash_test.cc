#include "catalog/content_hash.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog {
namespace {

BOOST_AUTO_TEST_SUITE(content_hash)

BOOST_AUTO_TEST_CASE(is_twelve_lowercase_hex_digits) {
  std::string hash = contentHash({"models: {}"});
  BOOST_TEST(hash.size() == 12u);
  BOOST_TEST(hash.find_first_not_of("0123456789abcdef") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(same_parts_give_the_same_hash) {
  BOOST_TEST(contentHash({"a", "b"}) == contentHash({"a", "b"}));
}

BOOST_AUTO_TEST_CASE(any_change_or_move_between_parts_changes_it) {
  BOOST_TEST(contentHash({"a", "b"}) != contentHash({"a", "c"}));
  BOOST_TEST(contentHash({"ab", ""}) != contentHash({"a", "b"}));
  BOOST_TEST(contentHash({"a", "b"}) != contentHash({"b", "a"}));
  BOOST_TEST(contentHash({}) != contentHash({""}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
