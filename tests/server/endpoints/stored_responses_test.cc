// The stored-response endpoints as a profile of the one pipeline, in-process, on a gateway without
// a store: refused in the Responses shape, one audit row each, nothing sent anywhere.
#include <boost/test/unit_test.hpp>

#include <string>

#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {

BOOST_AUTO_TEST_SUITE(stored_responses)

BOOST_AUTO_TEST_CASE(each_path_and_method_is_answered_in_the_responses_shape_with_one_row) {
  RequestPath path;
  struct Case {
    const char* method;
    const char* target;
    int status;
    const char* route_match;
  };
  const Case cases[] = {
      {"GET", "/v1/responses/resp_1", 404, "endpoint:responses_get"},
      {"DELETE", "/v1/responses/resp_1", 404, "endpoint:responses_delete"},
      {"GET", "/v1/responses/resp_1/input_items", 404, "endpoint:responses_input_items"},
      {"POST", "/v1/responses/resp_1", 405, "endpoint:responses_get"},
      {"GET", "/v1/responses/resp_1/other", 404, "endpoint:responses"},
  };
  for (const Case& c : cases) {
    const Reply reply = path.send(c.method, c.target, "");
    BOOST_TEST(reply.status == c.status, c.method << " " << c.target << ": " << reply.body);
    BOOST_TEST(reply.json()["error"].is_object(), reply.body);
  }
  const auto rows = path.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), std::size(cases));
  for (size_t i = 0; i < rows.size(); ++i) BOOST_TEST(rows[i].route_match == cases[i].route_match);
  BOOST_TEST(path.transport.sent().empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
