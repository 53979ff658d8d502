// RequestLedger: one row, one log line and one set of figures per request, whichever way it ends;
// and the quota's count of a request's tokens.
#include <boost/test/unit_test.hpp>

#include "server/pipeline/admission.h"
#include "server/pipeline/request_ledger.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {

BOOST_AUTO_TEST_SUITE(request_ledger)

BOOST_AUTO_TEST_CASE(a_request_nobody_ended_is_still_one_row_as_an_internal_error) {
  RequestPath path;
  { pipeline::RequestLedger ledger(path.gateway(), "req-1", "/v1/messages", catalog::Wire::Anthropic); }
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "internal_error");
  BOOST_TEST(row.status == 500);
  BOOST_TEST(row.id == "req-1");
}

BOOST_AUTO_TEST_CASE(a_refusal_names_its_outcome_from_the_error_key) {
  RequestPath path;
  {
    pipeline::RequestLedger ledger(path.gateway(), "req-2", "/v1/chat/completions", catalog::Wire::OpenAIChat);
    ledger.refused({403, "access_denied", "authz denied", {}, {}});
    BOOST_TEST(ledger.ended());
  }
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "access_denied");
  BOOST_TEST(row.status == 403);
  BOOST_TEST(row.error_key == "access_denied");
  BOOST_TEST(row.client_wire == "openai-chat");
  BOOST_TEST(row.ttfb_ms.has_value());
}

BOOST_AUTO_TEST_CASE(upstream_failures_are_told_apart_by_how_many_calls_were_sent) {
  BOOST_TEST(audit::toString(pipeline::RequestLedger::outcomeOf("model_not_found")) == "unknown_model");
  BOOST_TEST(audit::toString(pipeline::RequestLedger::outcomeOf("invalid_api_key")) == "unauthenticated");
  BOOST_TEST(audit::toString(pipeline::RequestLedger::outcomeOf("quota_exceeded")) == "quota_exceeded");
  BOOST_TEST(audit::toString(pipeline::RequestLedger::outcomeOf("data_protection_failed")) == "data_protection_failed");
  BOOST_TEST(audit::toString(pipeline::RequestLedger::outcomeOf("data_protection_blocked")) == "data_protection_blocked");
  RequestPath path;
  for (const int sent : {1, 2}) {
    pipeline::RequestLedger ledger(path.gateway(), "req-" + std::to_string(sent), "/v1/messages", catalog::Wire::Anthropic);
    ledger.noteUpstreamFailure(sent, false);
    ledger.refused({502, "api_error", "boom", {}, {}});
  }
  const auto rows = path.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);
  BOOST_TEST(rows[0].outcome == "upstream_error");
  BOOST_TEST(rows[1].outcome == "all_deployments_failed");
}

BOOST_AUTO_TEST_CASE(client_strings_kept_before_authentication_are_bounded) {
  RequestPath path;
  {
    pipeline::RequestLedger ledger(path.gateway(), "req-3", "/v1/messages", catalog::Wire::Anthropic);
    ledger.noteClient(std::string(100000, 'f'), std::string(2u << 20, 'm'), false);
    ledger.refused({401, "invalid_api_key", "no API key", {}, {}});
  }
  const auto row = path.onlyRow();
  BOOST_TEST(row.requested_model.size() < 300u);
  BOOST_TEST(row.client_family.size() < 300u);
}

BOOST_AUTO_TEST_CASE(cached_prompt_tokens_count_once_against_input_windows) {
  wire::Usage usage;
  usage.input_tokens = 1000;  // every prompt token, of which:
  usage.cache_read_tokens = 800;
  usage.cache_write_tokens = 150;
  usage.output_tokens = 20;
  const identity::QuotaUsage counted = pipeline::QuotaTicket::usageOf(usage, 77);
  BOOST_TEST(counted.input_tokens == 1000);
  BOOST_TEST(counted.output_tokens == 20);
  BOOST_TEST(counted.cost_microdollars == 77);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
