#include "server/dispatch/pricing.h"

#include <boost/test/unit_test.hpp>

#include "tests/server/dispatch/catalog_fixture.h"

using sluice::dispatch::cacheSavingsMicrodollars;
using sluice::dispatch::costMicrodollars;
using sluice::wire::Usage;

BOOST_AUTO_TEST_SUITE(pricing)

BOOST_AUTO_TEST_CASE(cost_sums_uncached_input_cache_reads_writes_and_output) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto& pricing = catalog->deploymentsOf("claude-sonnet-5-5").front().pricing;
  Usage usage;
  usage.input_tokens = 1'000'000 + 200'000 + 100'000;  // neutral counting: cached tokens included
  usage.cache_read_tokens = 200'000;
  usage.cache_write_tokens = 100'000;
  usage.output_tokens = 10'000;
  // 1M x $2 + 200k x $0.20 + 100k x $2.50 + 10k x $10 = 2.00 + 0.04 + 0.25 + 0.10
  BOOST_TEST(costMicrodollars(pricing, usage) == 2'390'000);
}

BOOST_AUTO_TEST_CASE(a_prompt_above_the_long_context_threshold_is_priced_at_that_tier) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto& pricing = catalog->deploymentsOf("claude-haiku-5-5").front().pricing;
  Usage small;
  small.input_tokens = 100'000;
  small.output_tokens = 1'000;
  BOOST_TEST(costMicrodollars(pricing, small) == 10'000 + 500);
  Usage large;
  large.input_tokens = 100'001;
  large.output_tokens = 1'000;
  BOOST_TEST(costMicrodollars(pricing, large) == 50'001 + 2'500);
}

BOOST_AUTO_TEST_CASE(per_deployment_overrides_change_only_the_fields_they_name) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto* go = catalog->deployment("deepseek-v4-pro", "opencode-go/chat");
  BOOST_REQUIRE(go != nullptr);
  BOOST_TEST(go->pricing.cache_read_per_million == 132'000);
  BOOST_TEST(go->pricing.input_per_million == 550'000);
  Usage usage;
  usage.input_tokens = 3;
  usage.output_tokens = 1;
  BOOST_TEST(costMicrodollars(go->pricing, usage) == 4);  // 1.65 + 2.19 microdollars, rounded
}

BOOST_AUTO_TEST_CASE(cache_reads_save_the_difference_between_the_input_and_cache_read_prices) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto& pricing = catalog->deploymentsOf("claude-sonnet-5-5").front().pricing;
  Usage usage;
  usage.input_tokens = 1'000'000 + 200'000 + 100'000;
  usage.cache_read_tokens = 200'000;
  usage.cache_write_tokens = 100'000;  // writes never count as savings
  usage.output_tokens = 10'000;
  // 200k x ($2.00 - $0.20) = $0.36
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 360'000);
  // What the request would have cost uncached = its cost + the savings.
  Usage uncached = usage;
  uncached.cache_read_tokens = 0;
  BOOST_TEST(costMicrodollars(pricing, uncached) == costMicrodollars(pricing, usage) + 360'000);
}

BOOST_AUTO_TEST_CASE(no_cache_reads_save_nothing) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto& pricing = catalog->deploymentsOf("claude-sonnet-5-5").front().pricing;
  Usage usage;
  usage.input_tokens = 50'000;
  usage.cache_write_tokens = 40'000;
  usage.output_tokens = 100;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 0);
  BOOST_TEST(cacheSavingsMicrodollars(pricing, Usage{}) == 0);
}

BOOST_AUTO_TEST_CASE(a_deployment_without_a_cache_read_price_saves_nothing) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto& pricing = catalog->deploymentsOf("claude-haiku-5-5").front().pricing;
  BOOST_REQUIRE(pricing.cache_read_per_million == pricing.input_per_million);  // reads charged as input
  Usage usage;
  usage.input_tokens = 90'000;
  usage.cache_read_tokens = 80'000;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 0);
}

BOOST_AUTO_TEST_CASE(savings_use_the_served_deployments_overridden_price_rounded_to_the_nearest) {
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto* direct = catalog->deployment("deepseek-v4-pro", "deepseek/api");
  const auto* go = catalog->deployment("deepseek-v4-pro", "opencode-go/chat");
  BOOST_REQUIRE(direct != nullptr);
  BOOST_REQUIRE(go != nullptr);
  Usage usage;
  usage.input_tokens = 1'500'000;
  usage.cache_read_tokens = 1'000'000;
  BOOST_TEST(cacheSavingsMicrodollars(direct->pricing, usage) == 410'000);  // 1M x ($0.55 - $0.14)
  BOOST_TEST(cacheSavingsMicrodollars(go->pricing, usage) == 418'000);      // 1M x ($0.55 - $0.132)
  Usage few;
  few.input_tokens = 3;
  few.cache_read_tokens = 3;
  BOOST_TEST(cacheSavingsMicrodollars(go->pricing, few) == 1);  // 1.254 microdollars
  few.cache_read_tokens = 1;
  BOOST_TEST(cacheSavingsMicrodollars(go->pricing, few) == 0);  // 0.418
}

BOOST_AUTO_TEST_CASE(above_the_long_context_threshold_savings_use_that_tiers_prices) {
  sluice::catalog::Pricing pricing;
  pricing.input_per_million = 3'000'000;
  pricing.output_per_million = 15'000'000;
  pricing.cache_read_per_million = 300'000;
  pricing.cache_write_per_million = 3'750'000;
  pricing.long_context = sluice::catalog::LongContextPricing{200'000, 6'000'000, 22'500'000, 600'000, std::nullopt};
  Usage usage;
  usage.input_tokens = 200'000;
  usage.cache_read_tokens = 100'000;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 270'000);  // 100k x ($3.00 - $0.30)
  usage.input_tokens = 200'001;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 540'000);  // 100k x ($6.00 - $0.60)
  // A tier that names no cache-read price keeps the base one, as the cost does.
  pricing.long_context->cache_read_per_million = std::nullopt;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 570'000);  // 100k x ($6.00 - $0.30)
}

BOOST_AUTO_TEST_CASE(a_cache_read_price_above_the_input_price_saves_nothing_rather_than_costing) {
  sluice::catalog::Pricing pricing;
  pricing.input_per_million = 1'000'000;
  pricing.cache_read_per_million = 1'250'000;
  Usage usage;
  usage.input_tokens = 10'000;
  usage.cache_read_tokens = 10'000;
  BOOST_TEST(cacheSavingsMicrodollars(pricing, usage) == 0);
}

BOOST_AUTO_TEST_CASE(prices_render_for_people) {
  BOOST_TEST(sluice::dispatch::formatPerMillion(2'000'000) == "$2.00");
  BOOST_TEST(sluice::dispatch::formatPerMillion(132'000) == "$0.132");
}

BOOST_AUTO_TEST_CASE(units_follow_the_operation_and_the_answer) {
  using sluice::dispatch::Unit;
  using sluice::dispatch::unitsFor;
  using sluice::wire::AnswerMeasure;
  using sluice::wire::Operation;
  AnswerMeasure images;
  images.data_items = 3;
  BOOST_TEST((unitsFor(Operation::ImageGenerations, images, 0).unit == Unit::Images));
  BOOST_TEST(unitsFor(Operation::ImageGenerations, images, 0).count == 3);
  BOOST_TEST((unitsFor(Operation::Speech, {}, 42).unit == Unit::Characters));
  BOOST_TEST(unitsFor(Operation::Speech, {}, 42).count == 42);
  AnswerMeasure spoken;
  spoken.duration_seconds = 6.25;
  BOOST_TEST((unitsFor(Operation::Transcriptions, spoken, 0).unit == Unit::Seconds));
  BOOST_TEST(unitsFor(Operation::Transcriptions, spoken, 0).count == 7);  // rounded up
  spoken.duration_seconds = 6.0;
  BOOST_TEST(unitsFor(Operation::Translations, spoken, 0).count == 6);
  BOOST_TEST((unitsFor(Operation::Transcriptions, {}, 0).unit == Unit::Requests));
  AnswerMeasure tokens;
  tokens.usage = Usage{};
  BOOST_TEST((unitsFor(Operation::Embeddings, tokens, 0).unit == Unit::None));
  BOOST_TEST((unitsFor(Operation::Moderations, {}, 0).unit == Unit::Requests));
  BOOST_TEST(unitsFor(Operation::Rerank, {}, 0).count == 1);
  BOOST_TEST(sluice::dispatch::toString(Unit::Seconds) == "seconds");
}

BOOST_AUTO_TEST_CASE(unit_prices_add_to_the_token_cost) {
  using sluice::dispatch::Unit;
  sluice::catalog::Pricing pricing;
  pricing.per_image = 40'000;          // $0.04
  pricing.per_1k_characters = 15'000;  // $0.015
  pricing.per_minute = 6'000;          // $0.006
  pricing.per_request = 1'000;         // $0.001
  pricing.input_per_million = 20'000;  // $0.02
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::Images, 3}) == 120'000);
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::Characters, 1500}) == 22'500);
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::Characters, 1}) == 15);
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::Seconds, 90}) == 9'000);
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::Requests, 1}) == 1'000);
  BOOST_TEST(sluice::dispatch::unitCostMicrodollars(pricing, {Unit::None, 5}) == 0);
  Usage usage;
  usage.input_tokens = 1'000'000;
  const auto charge = sluice::dispatch::chargeFor(pricing, usage, {Unit::Images, 2});
  BOOST_TEST(charge.cost_microdollars == 20'000 + 80'000);
  // A chat request counts no units: its cost is the tokens' alone.
  BOOST_TEST(sluice::dispatch::chargeFor(pricing, usage).cost_microdollars == 20'000);
}

BOOST_AUTO_TEST_SUITE_END()
