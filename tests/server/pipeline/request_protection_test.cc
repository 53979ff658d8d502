#include "server/pipeline/request_protection.h"

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "server/config/catalog_loader.h"
#include "server/dispatch/planner.h"
#include "server/protection/detectors.h"
#include "server/endpoints/inference.h"
#include "server/wire/codec.h"

namespace sluice::pipeline {
using pipeline::ClientBody;
namespace {

// One model on four endpoints, one per trust tier, in that order; data protection masks e-mail
// addresses and private keys, and blocks private keys from public endpoints.
catalog::CompileResult compile(const std::string& data_protection, bool attach = true) {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:KEY }\n"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  tiers:
    credential: c
    endpoints:
      box: { wire: anthropic, url: "https://box.example", trust: local }
      raw: { wire: anthropic, url: "https://raw.example", trust: trusted_raw }
      eu: { wire: anthropic, url: "https://eu.example", trust: trusted_masked }
      api: { wire: openai-chat, url: "https://api.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", "models:\n  m: {}\n"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", "deployments:\n  m: [tiers/box, tiers/raw, tiers/eu, tiers/api]\n"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", "gateway:\n  default_model: m\n" + data_protection};
  sources.env = {{"KEY", "k"}};
  auto result = catalog::compileCatalog(sources);
  if (attach) config::attachDataProtection(result);
  BOOST_TEST_REQUIRE(result.ok());
  return result;
}

const std::string kProtection = "  data_protection:\n    mask: [email, private_key]\n    block: [private_key]\n";

std::string body(const std::string& text) {
  return R"({"model":"m","max_tokens":100,"messages":[{"role":"user","content":")" + text + R"("}]})";
}

struct Case {
  explicit Case(const std::string& raw, const std::string& data_protection = kProtection, bool attach = true)
      : compiled(compile(data_protection, attach)), profile(catalog::Wire::Anthropic, raw), client(profile.body()) {
    BOOST_TEST_REQUIRE(client.inspect().has_value());
    dispatch::PlanRequest request;
    request.requested_model = "m";
    auto planned = dispatch::planDispatch(*compiled.catalog, request);
    BOOST_TEST_REQUIRE(planned.has_value());
    plan = std::move(*planned);
    BOOST_TEST_REQUIRE(plan.attempts.size() == 4u);
  }
  // box (local), raw (trusted_raw), eu (trusted_masked), api (public)
  const dispatch::Attempt& attempt(size_t i) const { return plan.attempts[i]; }

  catalog::CompileResult compiled;
  endpoints::Inference profile;
  ClientBody& client;
  dispatch::Plan plan;
};

using Verdict = RequestProtection::Verdict;

BOOST_AUTO_TEST_SUITE(request_protection)

BOOST_AUTO_TEST_CASE(raw_tiers_are_sent_as_written_and_masked_tiers_masked_once) {
  Case c(body("mail ann@example.com and ann@example.com"));
  RequestProtection protection(*c.compiled.catalog, c.profile);
  BOOST_TEST((protection.decide(c.attempt(0)).verdict == Verdict::Raw));
  BOOST_TEST((protection.decide(c.attempt(1)).verdict == Verdict::Raw));
  BOOST_TEST(protection.counts().empty());  // nothing masked before a masked attempt
  BOOST_TEST((protection.decide(c.attempt(2)).verdict == Verdict::Masked));
  const wire::Request* first = &c.profile.maskedRequest();
  BOOST_TEST((protection.decide(c.attempt(3)).verdict == Verdict::Masked));
  BOOST_TEST(&c.profile.maskedRequest() == first);  // the same masked request, not masked again
  const std::string text = c.profile.maskedRequest().messages[0].content[0].text;
  BOOST_TEST(text == "mail \xE2\x9F\xA6" "EMAIL_1\xE2\x9F\xA7 and \xE2\x9F\xA6" "EMAIL_1\xE2\x9F\xA7");
  BOOST_TEST(protection.counts().at(protection::Kind::Email) == 2);
  BOOST_REQUIRE(protection.mapping() != nullptr);
  BOOST_TEST(*protection.mapping()->original(protection::Kind::Email, 1) == "ann@example.com");
  // The client's own request is untouched: raw attempts still send it.
  BOOST_TEST((*c.client.ir())->messages[0].content[0].text == "mail ann@example.com and ann@example.com");
  // Encoded for the public endpoint's wire, the original is nowhere.
  const auto encoded = ClientBody::encodedFor(c.profile.maskedRequest(), c.attempt(3), c.plan);
  BOOST_REQUIRE(encoded.has_value());
  BOOST_TEST(encoded->find("ann@example.com") == std::string::npos);
  BOOST_TEST(encoded->find("EMAIL_1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(without_data_protection_every_tier_is_raw_and_nothing_is_decoded) {
  Case c("{\"model\":\"m\",\"messages\":\"not a list\"}", "");
  RequestProtection protection(*c.compiled.catalog, c.profile);
  for (size_t i = 0; i < 4; ++i) BOOST_TEST((protection.decide(c.attempt(i)).verdict == Verdict::Raw));
  BOOST_TEST(!c.compiled.catalog->masks(*c.attempt(3).endpoint));
}

BOOST_AUTO_TEST_CASE(a_blocked_kind_skips_public_attempts_only) {
  Case c(body("-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY----- from ann@example.com"));
  RequestProtection protection(*c.compiled.catalog, c.profile);
  BOOST_TEST((protection.decide(c.attempt(0)).verdict == Verdict::Raw));
  BOOST_TEST((protection.decide(c.attempt(2)).verdict == Verdict::Masked));
  const auto blocked = protection.decide(c.attempt(3));
  BOOST_TEST((blocked.verdict == Verdict::Blocked));
  BOOST_TEST(blocked.reason == "the request holds private_key, which is never sent to a public deployment");
  BOOST_TEST(protection.blockedReason() == blocked.reason);
  BOOST_TEST(protection.failedReason().empty());
}

BOOST_AUTO_TEST_CASE(an_undecodable_body_fails_closed_with_a_reason_that_quotes_nothing) {
  Case c(R"({"model":"m","max_tokens":10,"messages":[{"role":"wizard","content":"ann@example.com"}]})");
  RequestProtection protection(*c.compiled.catalog, c.profile);
  BOOST_TEST((protection.decide(c.attempt(0)).verdict == Verdict::Raw));
  const auto failed = protection.decide(c.attempt(2));
  BOOST_TEST((failed.verdict == Verdict::Failed));
  BOOST_TEST(failed.reason.find("does not decode") != std::string::npos);
  BOOST_TEST(failed.reason.find("ann@") == std::string::npos);
  BOOST_TEST(failed.reason.find("wizard") == std::string::npos);
  BOOST_TEST((protection.decide(c.attempt(3)).verdict == Verdict::Failed));
  BOOST_TEST(protection.failedReason() == failed.reason);
}

BOOST_AUTO_TEST_CASE(a_masking_limit_passed_fails_closed_naming_the_limit) {
  // 10,001 distinct e-mail addresses: one more than a request may hold placeholders for.
  std::string text;
  for (int i = 0; i <= 10'000; ++i) text += "u" + std::to_string(i) + "@example.com ";
  Case c(body(text));
  RequestProtection protection(*c.compiled.catalog, c.profile);
  BOOST_TEST((protection.decide(c.attempt(0)).verdict == Verdict::Raw));  // a local box still gets it
  const auto failed = protection.decide(c.attempt(3));
  BOOST_TEST((failed.verdict == Verdict::Failed));
  BOOST_TEST(failed.reason == "masking failed: the request holds more than 10000 distinct values to mask");
  BOOST_TEST(protection.counts().empty());
}

BOOST_AUTO_TEST_CASE(a_catalog_compiled_without_a_detector_fails_closed) {
  Case c(body("mail ann@example.com"), kProtection, /*attach=*/false);
  BOOST_TEST(c.compiled.catalog->data_protection->detector == nullptr);
  RequestProtection protection(*c.compiled.catalog, c.profile);
  const auto failed = protection.decide(c.attempt(3));
  BOOST_TEST((failed.verdict == Verdict::Failed));
  BOOST_TEST(failed.reason == "no detector was compiled for this catalog");
}

BOOST_AUTO_TEST_CASE(restore_false_gives_no_mapping_to_restore_with) {
  Case c(body("mail ann@example.com"), "  data_protection:\n    mask: [email]\n    restore: false\n");
  RequestProtection protection(*c.compiled.catalog, c.profile);
  BOOST_TEST((protection.decide(c.attempt(3)).verdict == Verdict::Masked));
  BOOST_TEST(protection.mapping() == nullptr);
  BOOST_TEST(protection.counts().at(protection::Kind::Email) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::pipeline
