#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/codec.h"

namespace sluice::wire::gemini {
namespace {

BOOST_AUTO_TEST_SUITE(client_side)

BOOST_AUTO_TEST_CASE(gemini_is_not_a_client_wire) {
  const auto request = decodeRequest(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
  BOOST_TEST_REQUIRE(!request.has_value());
  BOOST_TEST(request.error().status == 400);
  BOOST_TEST(request.error().key == "unsupported_wire");
  BOOST_TEST(request.error().message == "gemini is not a client wire");
  BOOST_TEST(encodeResponse(Response{}, ResponseContext{}).empty());
  BOOST_TEST(makeStreamEncoder(ResponseContext{}) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
