// A client body from strings: what inspect() reads, and what a refused body still answers.

#include "server/pipeline/client_body.h"

#include <string>

#include <boost/test/unit_test.hpp>

using sluice::catalog::Wire;
using sluice::pipeline::ClientBody;

namespace {

std::string nested(int depth) {
  return R"({"model":"m","max_tokens":64,"x":)" + std::string(depth - 1, '[') + std::string(depth - 1, ']') +
         R"(,"messages":[{"role":"user","content":"hi"}]})";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(client_body)

// A body nested past the bound is refused before any parse; asking its members afterwards (the
// audit row wants the model, the stream flag and max_tokens of every request, refused or not)
// answers "none" instead of reading a document that was never built. Before, maxTokens() read
// through an empty std::optional: the gateway crashed or closed the connection unanswered.
BOOST_AUTO_TEST_CASE(a_body_too_deep_to_read_has_no_members_after_its_refusal) {
  for (const Wire wire : {Wire::Anthropic, Wire::OpenAIChat, Wire::OpenAIResponses}) {
    ClientBody body(wire, nested(300));
    const auto inspected = body.inspect();
    BOOST_REQUIRE(!inspected.has_value());
    BOOST_TEST(inspected.error().message.find("deeper than 200 levels") != std::string::npos);
    BOOST_TEST(!body.maxTokens().has_value());
    BOOST_TEST(body.requestedModel().empty());
    BOOST_TEST(!body.stream());
  }
  ClientBody broken(Wire::OpenAIChat, R"({"model":"m","max_tokens":64,)");
  BOOST_REQUIRE(!broken.inspect().has_value());
  BOOST_TEST(!broken.maxTokens().has_value());
}

BOOST_AUTO_TEST_CASE(a_body_nested_to_the_bound_is_read_by_its_walk) {
  ClientBody body(Wire::Anthropic, nested(200));
  BOOST_REQUIRE(body.inspect().has_value());
  BOOST_TEST(body.requestedModel() == "m");
  BOOST_TEST(body.maxTokens().value_or(-1) == 64);
}

BOOST_AUTO_TEST_SUITE_END()
