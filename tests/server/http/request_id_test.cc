#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

#include "server/http/request_id.h"

namespace sluice::http {
namespace {

BOOST_AUTO_TEST_SUITE(request_id)

BOOST_AUTO_TEST_CASE(ids_are_uuid_version_7_and_unique) {
  std::set<std::string> seen;
  std::string previous;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = newRequestId();
    BOOST_REQUIRE_EQUAL(id.size(), 36u);
    for (size_t at = 0; at < id.size(); ++at) {
      const bool dash = at == 8 || at == 13 || at == 18 || at == 23;
      BOOST_REQUIRE(dash ? id[at] == '-' : std::isxdigit(static_cast<unsigned char>(id[at])) && !std::isupper(id[at]));
    }
    BOOST_TEST(id[14] == '7');                                      // version
    BOOST_TEST(std::string("89ab").find(id[19]) != std::string::npos);  // variant 10
    BOOST_TEST(id.substr(0, 13) >= previous.substr(0, std::min<size_t>(13, previous.size())));  // time-ordered
    previous = id;
    seen.insert(id);
  }
  BOOST_TEST(seen.size() == 1000u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
