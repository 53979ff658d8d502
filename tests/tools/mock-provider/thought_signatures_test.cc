#include "tools/mock-provider/thought_signatures.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/test_env.h"

using namespace sluice::mock;

namespace {

std::string history(const std::string& model_parts) {
  return R"({"contents":[{"role":"user","parts":[{"text":"weather?"}]},{"role":"model","parts":)" + model_parts +
         R"(},{"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"18"}}}]}]})";
}

std::string fixture(const std::string& relative) {
  std::ifstream in(std::filesystem::path(sluice::test::fixturesDir()) / relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(thought_signatures)

BOOST_AUTO_TEST_CASE(signed_calls_are_read_from_bodies_arrays_and_sse) {
  const auto body = signedCalls(R"({"candidates":[{"content":{"parts":[{"text":"hi"},
      {"functionCall":{"name":"a","args":{}},"thoughtSignature":"U0lH"},{"functionCall":{"name":"b"}}]}}]})");
  BOOST_TEST_REQUIRE(body.size() == 1u);
  BOOST_TEST(body[0].name == "a");
  BOOST_TEST(body[0].position == 0);
  BOOST_TEST(body[0].signature == "U0lH");
  // Vertex partialArgs: the call counts once; a signature on a later piece is the call's.
  const auto sse = signedCalls(
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}]}}]}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"willContinue\":true},\"thoughtSignature\":\"TGF0\"}]}}]}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}},{\"functionCall\":{\"name\":\"b\",\"args\":{}},\"thoughtSignature\":\"Qg==\"}]}}]}\r\n\r\n");
  BOOST_TEST_REQUIRE(sse.size() == 2u);
  BOOST_TEST(sse[0].signature == "TGF0");
  BOOST_TEST(sse[1].name == "b");
  BOOST_TEST(sse[1].position == 1);
  const auto recorded = signedCalls(fixture("gemini/vercel-ai__google-tool-call.json"));
  BOOST_TEST_REQUIRE(recorded.size() == 1u);
  BOOST_TEST(recorded[0].signature.starts_with("EskgCsYg"));
}

BOOST_AUTO_TEST_CASE(a_signed_call_must_come_back_with_its_signature_on_its_part) {
  ThoughtSignatures ledger;
  BOOST_TEST(!ledger.check(history(R"([{"functionCall":{"name":"weather","args":{}}}])")).has_value());
  ledger.remember({{"weather", 0, "U0lH_-=="}});
  // The same signature, either base64 alphabet, on the call: accepted.
  BOOST_TEST(!ledger.check(history(R"([{"functionCall":{"name":"weather","args":{}},"thoughtSignature":"U0lH/+"}])")).has_value());
  BOOST_TEST(!ledger.check(history(R"([{"function_call":{"name":"weather","args":{}},"thought_signature":"U0lH_-=="}])")).has_value());
  // Missing, the validator-skipping value, or on another part: Gemini's 400.
  for (const std::string parts : {R"([{"functionCall":{"name":"weather","args":{}}}])",
                                  R"([{"functionCall":{"name":"weather","args":{}},"thoughtSignature":"skip_thought_signature_validator"}])",
                                  R"([{"text":"","thoughtSignature":"U0lH_-=="},{"functionCall":{"name":"weather","args":{}}}])"}) {
    const auto refused = ledger.check(history(parts));
    BOOST_TEST_REQUIRE(refused.has_value(), parts);
    BOOST_TEST(refused->status == 400);
    BOOST_TEST(refused->type == "INVALID_ARGUMENT");
    BOOST_TEST(refused->message.starts_with("Function call is missing a thought_signature in functionCall parts."));
    BOOST_TEST(refused->message.find("`default_api:weather` , position 2") != std::string::npos);
  }
  const auto corrupted = ledger.check(history(R"([{"functionCall":{"name":"weather","args":{}},"thoughtSignature":"T1RIRVI="}])"));
  BOOST_TEST_REQUIRE(corrupted.has_value());
  BOOST_TEST(corrupted->message == "Corrupted thought signature.");
  // A call the mock never signed (another name or position) is not checked.
  BOOST_TEST(!ledger.check(history(R"([{"functionCall":{"name":"other","args":{}}}])")).has_value());
}

BOOST_AUTO_TEST_CASE(minted_call_signatures_name_the_answer_and_the_call) {
  BOOST_TEST(mintCallSignature("gemini-test", 7, 0, "multiply") ==
             "c2x1aWNlLW1vY2stdGhvdWdodC1zaWduYXR1cmUvZ2VtaW5pLXRlc3QvNy8wL211bHRpcGx5");
}

BOOST_AUTO_TEST_SUITE_END()
