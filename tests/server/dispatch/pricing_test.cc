#include "server/dispatch/pricing.h"

#include <boost/test/unit_test.hpp>

#include "tests/server/dispatch/catalog_fixture.h"

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

BOOST_AUTO_TEST_CASE(prices_render_for_people) {
  BOOST_TEST(sluice::dispatch::formatPerMillion(2'000'000) == "$2.00");
  BOOST_TEST(sluice::dispatch::formatPerMillion(132'000) == "$0.132");
}

BOOST_AUTO_TEST_SUITE_END()
