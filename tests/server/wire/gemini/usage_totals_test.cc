#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/usage_totals.h"

namespace sluice::wire::gemini {
namespace {

BOOST_AUTO_TEST_SUITE(usage_totals)

BOOST_AUTO_TEST_CASE(usage_keeps_the_last_value_of_each_count) {
  UsageTotals totals;
  BOOST_TEST(!totals.reported());
  totals.merge(Json::parse(R"({"trafficType":"ON_DEMAND"})"));
  BOOST_TEST(!totals.reported());
  totals.merge(Json::parse(R"({"promptTokenCount":100,"cachedContentTokenCount":60,"thoughtsTokenCount":7})"));
  totals.merge(Json::parse(R"({"promptTokenCount":100,"candidatesTokenCount":12,"toolUsePromptTokenCount":5})"));
  BOOST_TEST(totals.reported());
  const Usage usage = totals.usage();
  BOOST_TEST(usage.input_tokens == 105);
  BOOST_TEST(usage.cache_read_tokens == 60);
  BOOST_TEST(usage.cache_write_tokens == 0);
  BOOST_TEST(usage.output_tokens == 19);
  BOOST_TEST(usage.reasoning_tokens == 7);
  BOOST_TEST(totals.inputUsage().output_tokens == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
