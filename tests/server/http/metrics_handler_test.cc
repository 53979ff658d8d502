// The operations token's check, with strings: how an Authorization value presents --ops-token.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "server/http/handlers.h"

namespace sluice::http {
namespace {

constexpr std::string_view kToken = "ops-0123456789abcdef";

BOOST_AUTO_TEST_SUITE(metrics_handler)

// RFC 9110 §11.1: the scheme is case-insensitive; a scraper writing `bearer` is not refused.
BOOST_AUTO_TEST_CASE(the_bearer_scheme_is_read_in_any_case_with_any_blanks) {
  for (const std::string header : {"Bearer ops-0123456789abcdef", "bearer ops-0123456789abcdef",
                                   "BEARER ops-0123456789abcdef", "bEaReR\tops-0123456789abcdef",
                                   "Bearer   ops-0123456789abcdef  "}) {
    BOOST_TEST(opsTokenMatches(header, kToken), header);
  }
}

BOOST_AUTO_TEST_CASE(anything_but_the_token_itself_is_refused) {
  const std::vector<std::string> refused = {
      "Bearer ops-0123456789abcdeF", "Bearer ops-0123456789abcde", "Bearer ops-0123456789abcdef0",
      "Bearer ", "Bearer", "Bearerops-0123456789abcdef", "Basic ops-0123456789abcdef", "ops-0123456789abcdef",
      "Bearer  ", "", "Bearer ops-0123456789abcdef ops-0123456789abcdef", "Bearer x" + std::string(kToken)};
  for (const std::string& header : refused) {
    BOOST_TEST(!opsTokenMatches(header, kToken), header);
  }
  // No token configured matches nothing, not even an empty one.
  BOOST_TEST(!opsTokenMatches("Bearer ", ""));
  BOOST_TEST(!opsTokenMatches("Bearer x", ""));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
