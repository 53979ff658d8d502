#include "server/dispatch/optional_field.h"

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using sluice::dispatch::optionalFieldRetry;
namespace data = boost::unit_test::data;

namespace {

std::string fixture(const std::string& relative) {
  const std::string path = std::string(SLUICE_TEST_FIXTURES_DIR) + "/" + relative;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read fixture " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string openai(const std::string& message, const std::string& param = "null") {
  return R"({"error":{"message":")" + message + R"(","type":"invalid_request_error","param":)" + param +
         R"(,"code":null}})";
}

std::string anthropic(const std::string& message) {
  return R"({"type":"error","error":{"type":"invalid_request_error","message":")" + message + R"("}})";
}

std::string gemini(const std::string& message) {
  return R"({"error":{"code":400,"message":")" + message + R"(","status":"INVALID_ARGUMENT"}})";
}

struct FieldCase {
  std::string name;
  int status;
  std::string error;
  std::string body;
  std::string field;  // "" when no retry
  std::string renamed_to;
  std::string retried_body;
};
std::ostream& operator<<(std::ostream& out, const FieldCase& c) { return out << c.name; }

const std::vector<FieldCase> kCases = {
    // OpenAI-compatible targets that do not know a field.
    {"reasoning_effort_unrecognized", 400, openai("Unrecognized request argument supplied: reasoning_effort"),
     R"({"model":"m","reasoning_effort":"high","messages":[]})", "reasoning_effort", "", R"({"model":"m","messages":[]})"},
    {"max_completion_tokens_becomes_max_tokens", 400,
     openai("Unrecognized request argument supplied: max_completion_tokens"),
     R"({"model":"m","max_completion_tokens":50,"messages":[]})", "max_completion_tokens", "max_tokens",
     R"({"model":"m","max_tokens":50,"messages":[]})"},
    {"max_completion_tokens_is_dropped_when_max_tokens_is_there", 400,
     openai("Unrecognized request argument supplied: max_completion_tokens"),
     R"({"model":"m","max_tokens":10,"max_completion_tokens":50})", "max_completion_tokens", "",
     R"({"model":"m","max_tokens":10})"},
    {"parallel_tool_calls_not_supported", 400, openai("parallel_tool_calls is not supported by this model"),
     R"({"model":"m","parallel_tool_calls":false,"tools":[]})", "parallel_tool_calls", "", R"({"model":"m","tools":[]})"},
    {"seed_by_param", 400, openai("Unsupported parameter.", R"("seed")"), R"({"model":"m","seed":7})", "seed", "",
     R"({"model":"m"})"},
    {"service_tier_quoted", 400, openai("Invalid value for 'service_tier': this account cannot use it"),
     R"({"model":"m","service_tier":"flex"})", "service_tier", "", R"({"model":"m"})"},
    {"stream_options_extra_input", 422, anthropic("stream_options: Extra inputs are not permitted"),
     R"({"model":"m","stream":true,"stream_options":{"include_usage":true}})", "stream_options", "",
     R"({"model":"m","stream":true})"},
    {"top_k_extra_input", 400, anthropic("top_k: Extra inputs are not permitted"), R"({"model":"m","top_k":40})",
     "top_k", "", R"({"model":"m"})"},
    {"logprobs", 400, openai("logprobs is not supported for this model"), R"({"model":"m","logprobs":true})",
     "logprobs", "", R"({"model":"m"})"},
    {"top_logprobs_is_not_mistaken_for_logprobs", 400, openai("top_logprobs must be at most 5"),
     R"({"model":"m","logprobs":true,"top_logprobs":20})", "top_logprobs", "", R"({"model":"m","logprobs":true})"},
    {"frequency_penalty", 400, openai("frequency_penalty is not supported with this model"),
     R"({"model":"m","frequency_penalty":0.5})", "frequency_penalty", "", R"({"model":"m"})"},
    {"presence_penalty", 400, openai("Unsupported parameter: 'presence_penalty'"),
     R"({"model":"m","presence_penalty":1})", "presence_penalty", "", R"({"model":"m"})"},
    {"user_quoted", 400, openai("Unsupported parameter: 'user' is not supported"), R"({"model":"m","user":"u-1"})",
     "user", "", R"({"model":"m"})"},
    {"user_after_a_colon", 400, openai("Unrecognized request argument supplied: user"),
     R"({"model":"m","user":"u-1"})", "user", "", R"({"model":"m"})"},
    {"user_as_a_word_is_not_the_field", 400, openai("the user message must follow the system message"),
     R"({"model":"m","user":"u-1"})", "", "", ""},
    {"metadata_extra_input", 400, anthropic("metadata: Extra inputs are not permitted"),
     R"({"model":"m","metadata":{"user_id":"x"}})", "metadata", "", R"({"model":"m"})"},
    {"metadata_as_a_word_is_not_the_field", 400, anthropic("metadata is only allowed for some keys"),
     R"({"model":"m","metadata":{}})", "", "", ""},
    {"store_quoted", 400, openai("Unsupported parameter: 'store'"), R"({"model":"m","store":true})", "store", "",
     R"({"model":"m"})"},
    {"temperature_and_top_p_both_named_drops_the_first", 400,
     anthropic("`temperature` and `top_p` cannot both be specified for this model. Please use only one."),
     R"({"model":"m","temperature":0.7,"top_p":0.9})", "temperature", "", R"({"model":"m","top_p":0.9})"},
    {"param_wins_over_an_earlier_mention", 400,
     openai("temperature is fine, but seed is not supported", R"("seed")"), R"({"model":"m","temperature":1,"seed":3})",
     "seed", "", R"({"model":"m","temperature":1})"},
    {"the_responses_reasoning_effort", 400, openai("Unsupported parameter: 'reasoning.effort'", R"("reasoning.effort")"),
     R"({"model":"m","input":"hi","reasoning":{"effort":"high","summary":"auto"}})", "reasoning.effort", "",
     R"({"model":"m","input":"hi","reasoning":{"summary":"auto"}})"},
    {"the_responses_text_verbosity", 400, openai("Unsupported value: 'text.verbosity' does not support 'low'"),
     R"({"model":"m","text":{"verbosity":"low"}})", "text.verbosity", "", R"({"model":"m","text":{}})"},
    {"gemini_unknown_seed", 400,
     gemini(R"(Invalid JSON payload received. Unknown name \"seed\" at 'generation_config': Cannot find field.)"),
     R"({"contents":[],"generationConfig":{"seed":1,"temperature":0.2}})", "generationConfig.seed", "",
     R"({"contents":[],"generationConfig":{"temperature":0.2}})"},
    {"gemini_unknown_thinking_config", 400,
     gemini(R"(Invalid JSON payload received. Unknown name \"thinkingConfig\" at 'generation_config': Cannot find field.)"),
     R"({"contents":[],"generationConfig":{"thinkingConfig":{"thinkingBudget":1024}}})",
     "generationConfig.thinkingConfig", "", R"({"contents":[],"generationConfig":{}})"},
    {"gemini_snake_case_top_k", 400, gemini(R"(Invalid value at 'generation_config.top_k' (TYPE_INT32))"),
     R"({"contents":[],"generationConfig":{"topK":2}})", "generationConfig.topK", "",
     R"({"contents":[],"generationConfig":{}})"},
    // Anthropic's effort on a model that lacks the level (tests/fixtures/anthropic/
    // pydantic-ai__test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml).
    {"anthropic_effort_level", 400,
     anthropic("This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium."),
     R"({"max_tokens":4096,"messages":[],"model":"claude-opus-4-6","output_config":{"effort":"xhigh"},"stream":false})",
     "output_config.effort", "", R"({"max_tokens":4096,"messages":[],"model":"claude-opus-4-6","output_config":{},"stream":false})"},
    {"a_plain_text_error_body", 400, "Unknown parameter: seed", R"({"model":"m","seed":1})", "seed", "",
     R"({"model":"m"})"},
    {"unicode_and_key_order_are_kept", 400, openai("Unsupported parameter: 'seed'"),
     R"({"z":1,"messages":[{"role":"user","content":"héllo ✓"}],"seed":1,"a":2})", "seed", "",
     R"({"z":1,"messages":[{"role":"user","content":"héllo ✓"}],"a":2})"},
    // Nothing to retry.
    {"a_named_field_the_body_does_not_carry", 400, openai("Unsupported parameter: 'seed'"), R"({"model":"m"})", "", "",
     ""},
    {"a_required_field_is_never_dropped", 400, anthropic("model: Field required"), R"({"model":"m","messages":[]})",
     "", "", ""},
    {"messages_are_never_dropped", 400, anthropic("messages: roles must alternate"), R"({"model":"m","messages":[]})",
     "", "", ""},
    {"max_tokens_without_the_hint_is_left_alone", 400, anthropic("max_tokens: must be at most 8192"),
     R"({"model":"m","max_tokens":100000})", "", "", ""},
    {"a_role_error_is_not_an_optional_field", 400,
     openai("Unsupported value: 'messages[0].role' does not support 'developer' with this model.",
            R"("messages[0].role")"),
     R"({"model":"o1-mini","messages":[{"role":"developer","content":"x"}]})", "", "", ""},
    {"a_500_is_not_retried_without_a_field", 500, openai("seed broke us"), R"({"model":"m","seed":1})", "", "", ""},
    {"a_429_is_not_retried_without_a_field", 429, openai("seed rate"), R"({"model":"m","seed":1})", "", "", ""},
    {"a_401_is_not_retried_without_a_field", 401, openai("'seed' key"), R"({"model":"m","seed":1})", "", "", ""},
    {"a_body_that_is_not_json", 400, openai("Unsupported parameter: 'seed'"), "seed=1", "", "", ""},
    {"a_body_that_is_an_array", 400, openai("Unsupported parameter: 'seed'"), R"([{"seed":1}])", "", "", ""},
    {"an_empty_error", 400, "", R"({"model":"m","seed":1})", "", "", ""},
    {"a_prefix_of_a_longer_word_is_not_a_mention", 400, openai("seeding is not supported"), R"({"model":"m","seed":1})",
     "", "", ""},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(optional_field)

BOOST_DATA_TEST_CASE(finds_the_optional_field_an_error_names, data::make(kCases), c) {
  const auto retry = optionalFieldRetry(c.status, c.error, c.body);
  if (c.field.empty()) {
    BOOST_TEST(!retry.has_value(), "unexpected retry without " << (retry ? retry->field : ""));
    return;
  }
  BOOST_REQUIRE(retry.has_value());
  BOOST_TEST(retry->field == c.field);
  BOOST_TEST(retry->renamed_to.value_or("") == c.renamed_to);
  BOOST_TEST(retry->body == c.retried_body);
  BOOST_TEST(retry->segment() == "retried_without:" + c.field);
}

// tests/fixtures/openai-chat/vercel-ai__reasoning-model-legacy-parameter-error.json: a reasoning
// model refuses max_tokens and asks for max_completion_tokens.
BOOST_AUTO_TEST_CASE(a_reasoning_model_refusing_max_tokens_gets_max_completion_tokens) {
  const std::string error = fixture("openai-chat/vercel-ai__reasoning-model-legacy-parameter-error.json");
  const std::string body = R"({"model":"o3-mini","messages":[{"role":"user","content":"Hello"}],"max_tokens":100})";
  const auto retry = optionalFieldRetry(400, error, body);
  BOOST_REQUIRE(retry.has_value());
  BOOST_TEST(retry->field == "max_tokens");
  BOOST_TEST(retry->renamed_to.value_or("") == "max_completion_tokens");
  BOOST_TEST(retry->body ==
             R"({"model":"o3-mini","messages":[{"role":"user","content":"Hello"}],"max_completion_tokens":100})");
  BOOST_TEST(retry->segment() == "retried_without:max_tokens");
}

// tests/fixtures/openai-responses/vercel-ai__reasoning-model-temperature-error.json: a reasoning
// model refuses temperature.
BOOST_AUTO_TEST_CASE(a_reasoning_model_refusing_temperature_gets_the_body_without_it) {
  const std::string error = fixture("openai-responses/vercel-ai__reasoning-model-temperature-error.json");
  const std::string body = R"({"model":"o3","input":[{"role":"user","content":"Hi"}],"temperature":0.5,"store":false})";
  const auto retry = optionalFieldRetry(400, error, body);
  BOOST_REQUIRE(retry.has_value());
  BOOST_TEST(retry->field == "temperature");
  BOOST_TEST(!retry->renamed_to.has_value());
  BOOST_TEST(retry->body == R"({"model":"o3","input":[{"role":"user","content":"Hi"}],"store":false})");
  // The same error as 422 is retried too; as 500 it is not.
  BOOST_TEST(optionalFieldRetry(422, error, body).has_value());
  BOOST_TEST(!optionalFieldRetry(500, error, body).has_value());
}

BOOST_AUTO_TEST_CASE(a_retried_body_has_nothing_left_to_drop) {
  const std::string error = fixture("openai-responses/vercel-ai__reasoning-model-temperature-error.json");
  const auto first = optionalFieldRetry(400, error, R"({"model":"o3","temperature":0.5})");
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(!optionalFieldRetry(400, error, first->body).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
