// AttemptRunner on its own: credential binding (platform or the member's own key, never the
// caller's), the bounded error body, and what each result carries.
#include <boost/test/unit_test.hpp>

#include <string>

#include "server/pipeline/attempt_runner.h"
#include "server/pipeline/request_ledger.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

struct Runner {
  RequestPath path;
  std::shared_ptr<const catalog::Catalog> catalog = path.gateway().catalog();
  pipeline::RequestLedger ledger{path.gateway(), "req-runner", "/v1/messages", catalog::Wire::Anthropic};
  upstream::Cancel cancel;

  dispatch::Attempt attemptOf(const std::string& model, const std::string& endpoint) {
    dispatch::Attempt attempt;
    attempt.deployment = catalog->deployment(model, endpoint);
    attempt.endpoint = catalog->endpoint(endpoint);
    attempt.provider = catalog->provider(attempt.deployment->provider_id);
    attempt.credential = catalog->credential(attempt.provider->credential_id);
    attempt.paid_by = attempt.credential->kind;
    return attempt;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(attempt_runner)

BOOST_AUTO_TEST_CASE(a_personal_credential_sends_the_members_own_key_and_never_the_platforms) {
  Runner runner;
  runner.path.transport.script("mine.example", FakeTransport::json(200, anthropicAnswer()));
  pipeline::AttemptRunner attempts(runner.path.transport, runner.path.gateway().endpoints(), runner.ledger, runner.cancel,
                               [](const catalog::Credential& credential) -> std::expected<std::string, std::string> {
                                 if (credential.id == "mine") return "sk-member-own";
                                 return std::unexpected("no key");
                               });
  const auto mine = runner.attemptOf("member-model", "mine/api");
  auto result = attempts.run({&mine, "{}", false, "", catalog::Wire::Anthropic, nullptr});
  BOOST_REQUIRE(std::holds_alternative<pipeline::Answer>(result));
  const auto sent = runner.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sentHeader(sent[0], "x-api-key") == "sk-member-own");
  for (const auto& [name, value] : sent[0].headers) {
    BOOST_TEST(value.find("sk-primary") == std::string::npos);
    BOOST_TEST(value.find("sk-second") == std::string::npos);
  }

  // The platform deployment after it gets the platform's key, never the member's.
  runner.path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()));
  const auto second = runner.attemptOf("member-model", "second/api");
  auto platform = attempts.run({&second, "{}", false, "", catalog::Wire::Anthropic, nullptr});
  BOOST_REQUIRE(std::holds_alternative<pipeline::Answer>(platform));
  BOOST_TEST(sentHeader(runner.path.transport.sent().back(), "x-api-key") == "sk-second");
}

BOOST_AUTO_TEST_CASE(a_personal_credential_without_a_key_is_unbound_with_the_stores_reason) {
  Runner runner;
  pipeline::AttemptRunner attempts(runner.path.transport, runner.path.gateway().endpoints(), runner.ledger, runner.cancel,
                               [](const catalog::Credential&) -> std::expected<std::string, std::string> {
                                 return std::unexpected("no key stored for mine");
                               });
  const auto mine = runner.attemptOf("member-model", "mine/api");
  auto result = attempts.run({&mine, "{}", false, "", catalog::Wire::Anthropic, nullptr});
  BOOST_REQUIRE(std::holds_alternative<pipeline::Failed>(result));
  BOOST_TEST(static_cast<int>(std::get<pipeline::Failed>(result).stage) == static_cast<int>(pipeline::Failed::Stage::Unbound));
  BOOST_TEST(std::get<pipeline::Failed>(result).reason == "no key stored for mine");
  BOOST_TEST(runner.path.transport.sentCount() == 0u);
  BOOST_TEST(runner.ledger.row().attempts.front().result == "skipped:personal_key_missing");
}

BOOST_AUTO_TEST_CASE(an_error_body_is_read_within_its_bound) {
  Runner runner;
  std::string huge(pipeline::kMaxErrorBody * 2, 'x');
  runner.path.transport.script("primary.example", FakeTransport::json(404, huge));
  pipeline::AttemptRunner attempts(runner.path.transport, runner.path.gateway().endpoints(), runner.ledger, runner.cancel,
                               {});
  const auto primary = runner.attemptOf("chain-model", "primary/api");
  auto result = attempts.run({&primary, "{}", false, "", catalog::Wire::Anthropic, nullptr});
  BOOST_REQUIRE(std::holds_alternative<pipeline::Answer>(result));
  BOOST_TEST(std::get<pipeline::Answer>(result).error_body.size() == pipeline::kMaxErrorBody);
}

BOOST_AUTO_TEST_CASE(a_single_try_returns_any_answer_without_retrying) {
  Runner runner;
  runner.path.transport.script("primary.example", FakeTransport::json(503, "{}").repeating());
  pipeline::AttemptRunner attempts(runner.path.transport, runner.path.gateway().endpoints(), runner.ledger, runner.cancel,
                               {});
  const auto primary = runner.attemptOf("chain-model", "primary/api");
  pipeline::AttemptCall call{&primary, "{}", false, "", catalog::Wire::Anthropic, nullptr};
  call.single_try = true;
  auto result = attempts.run(std::move(call));
  BOOST_REQUIRE(std::holds_alternative<pipeline::Answer>(result));
  BOOST_TEST(runner.path.transport.sentCount() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
