#include "catalog/pricing_reader.h"

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::atIn;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(pricing_reader)

BOOST_AUTO_TEST_CASE(usd_per_million_becomes_integer_microdollars) {
  auto catalog = compileClean(baselineSources());
  const Pricing& p = catalog->model("claude-sonnet-5-5")->pricing;
  BOOST_TEST(p.input_per_million == 2'000'000);
  BOOST_TEST(p.output_per_million == 10'000'000);
  BOOST_TEST(p.cache_read_per_million == 200'000);
  BOOST_TEST(p.cache_write_per_million == 2'500'000);
  BOOST_TEST(catalog->model("deepseek-v4-pro")->pricing.output_per_million == 2'190'000);
}

BOOST_AUTO_TEST_CASE(long_context_tier_is_read) {
  auto catalog = compileClean(baselineSources());
  const Pricing& haiku = catalog->model("claude-haiku-5")->pricing;
  BOOST_TEST(haiku.input_per_million == 100'000);
  BOOST_TEST(haiku.output_per_million == 500'000);
  BOOST_REQUIRE(haiku.long_context.has_value());
  BOOST_TEST(haiku.long_context->above_input_tokens == 100'000);
  BOOST_TEST(haiku.long_context->input_per_million == 500'000);
  BOOST_TEST(haiku.long_context->output_per_million == 2'500'000);
  BOOST_TEST(!haiku.long_context->cache_read_per_million.has_value());
  BOOST_TEST(!catalog->model("deepseek-v4-pro")->pricing.long_context.has_value());
}

BOOST_AUTO_TEST_CASE(unpriced_cache_is_charged_as_input) {
  auto catalog = compileClean(baselineSources());
  const Pricing& haiku = catalog->model("claude-haiku-5")->pricing;
  BOOST_TEST(haiku.cache_read_per_million == 100'000);
  BOOST_TEST(haiku.cache_write_per_million == 100'000);
}

BOOST_AUTO_TEST_CASE(deployment_override_is_merged_field_by_field) {
  auto catalog = compileClean(baselineSources());
  const Pricing& go = catalog->deployment("deepseek-v4-pro", "opencode-go/chat")->pricing;
  BOOST_TEST(go.cache_read_per_million == 132'000);
  BOOST_TEST(go.input_per_million == 550'000);
  BOOST_TEST(go.output_per_million == 2'190'000);
  const Pricing& direct = catalog->deployment("deepseek-v4-pro", "deepseek/api")->pricing;
  BOOST_TEST(direct.cache_read_per_million == 140'000);
}

BOOST_AUTO_TEST_CASE(overriding_the_input_price_moves_cache_prices_the_model_left_to_default) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "deepseek-flash: [deepseek/api, deepseek-eu/api]",
       "deepseek-flash:\n    - deepseek/api\n    - { endpoint: deepseek-eu/api, pricing: { input_per_million: 0.05 } }");
  auto catalog = compileClean(sources);
  const Pricing& eu = catalog->deployment("deepseek-flash", "deepseek-eu/api")->pricing;
  BOOST_TEST(eu.input_per_million == 50'000);
  BOOST_TEST(eu.cache_read_per_million == 50'000);
  BOOST_TEST(eu.output_per_million == 280'000);
  BOOST_TEST(catalog->deployment("deepseek-flash", "deepseek/api")->pricing.cache_read_per_million == 70'000);
}

BOOST_AUTO_TEST_CASE(deployment_long_context_override_merges_into_the_models_tier) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]",
       "claude-haiku-5:\n    - endpoint: anthropic/api\n      pricing: { long_context: { output_per_million: 3.00 } }");
  auto catalog = compileClean(sources);
  const Pricing& p = catalog->deploymentsOf("claude-haiku-5")[0].pricing;
  BOOST_REQUIRE(p.long_context.has_value());
  BOOST_TEST(p.long_context->above_input_tokens == 100'000);
  BOOST_TEST(p.long_context->input_per_million == 500'000);
  BOOST_TEST(p.long_context->output_per_million == 3'000'000);
}

BOOST_AUTO_TEST_CASE(new_long_context_tier_on_a_deployment_must_be_complete) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "pricing: { cache_read_per_million: 0.132 }",
       "pricing: { long_context: { input_per_million: 1.0 } }");
  expectError(compileCatalog(sources), at(sources.deployments, "long_context"),
              "long_context pricing of deployment 'opencode-go/chat' of model 'deepseek-v4-pro' needs above_input_tokens");
}

BOOST_AUTO_TEST_CASE(model_without_pricing_is_free) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  local-free: {}\n");
  append(sources.deployments, "  local-free: [deepseek/api]\n");
  auto catalog = compileClean(sources);
  const Pricing& p = catalog->deploymentsOf("local-free")[0].pricing;
  BOOST_TEST(p.input_per_million == 0);
  BOOST_TEST(p.output_per_million == 0);
  BOOST_TEST(p.cache_read_per_million == 0);
}

BOOST_AUTO_TEST_CASE(deployment_pricing_over_an_unpriced_model_needs_input_and_output) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  local-free: {}\n");
  append(sources.deployments, "  local-free:\n    - endpoint: deepseek/api\n      pricing: { input_per_million: 1 }\n");
  expectError(compileCatalog(sources), atIn(sources.deployments, "local-free", "pricing"),
              "pricing of deployment 'deepseek/api' of model 'local-free' needs output_per_million");
}

BOOST_AUTO_TEST_CASE(model_pricing_needs_input_and_output) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "pricing: { input_per_million: 0.07, output_per_million: 0.28 }",
       "pricing: { output_per_million: 0.28 }");
  expectError(compileCatalog(sources), atIn(sources.models, "deepseek-flash", "pricing"),
              "pricing of model 'deepseek-flash' needs input_per_million");
}

BOOST_AUTO_TEST_CASE(model_long_context_needs_its_threshold_and_prices) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "long_context: { above_input_tokens: 100000, ", "long_context: { ");
  expectError(compileCatalog(sources), atIn(sources.models, "claude-haiku-5", "long_context"),
              "long_context pricing of model 'claude-haiku-5' needs above_input_tokens");
}

BOOST_AUTO_TEST_CASE(prices_must_be_non_negative_numbers) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "cache_read_per_million: 0.20", "cache_read_per_million: -0.20");
  edit(sources.deployments, "cache_read_per_million: 0.132", "cache_read_per_million: cheap");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.models, "-0.20"),
              "cache_read_per_million in pricing of model 'claude-sonnet-5-5' must be a non-negative number of US dollars, got '-0.20'");
  expectError(result, at(sources.deployments, "cheap"),
              "cache_read_per_million in pricing of deployment 'opencode-go/chat' of model 'deepseek-v4-pro' "
              "must be a non-negative number of US dollars, got 'cheap'");
  BOOST_TEST(result.diagnostics.size() == 2u, testing::dump(result));
}

BOOST_AUTO_TEST_CASE(threshold_must_be_a_positive_integer) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "above_input_tokens: 100000", "above_input_tokens: 0");
  expectError(compileCatalog(sources), atIn(sources.models, "above_input_tokens: 0", "0"),
              "above_input_tokens in long_context pricing of model 'claude-haiku-5' must be a positive integer, got '0'");
}

BOOST_AUTO_TEST_CASE(unknown_pricing_keys_are_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "      cache_write_per_million: 2.50", "      cache_write_per_milion: 2.50");
  expectError(compileCatalog(sources), at(sources.models, "cache_write_per_milion"),
              "unknown key 'cache_write_per_milion' in pricing of model 'claude-sonnet-5-5'; expected one of: "
              "input_per_million, output_per_million, cache_read_per_million, cache_write_per_million, long_context, "
              "per_image, per_1k_characters, per_minute, per_request (did you mean 'cache_write_per_million'?)");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
