// gateway.limits: what one request may cost upstream.
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::dump;
using testing::edit;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_limits)

BOOST_AUTO_TEST_CASE(limits_default_to_ten_calls_and_ten_seconds_of_retry_waits) {
  CatalogSources sources = baselineSources();
  const auto defaults = compileClean(sources);
  BOOST_TEST(defaults->limits.max_attempts == 10);
  BOOST_TEST(defaults->limits.max_retry_ms == 10000);
  edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
       "  default_model: claude-sonnet-5-5\n  limits: { max_attempts: 4, max_retry_ms: 2500 }\n");
  const auto set = compileClean(sources);
  BOOST_TEST(set->limits.max_attempts == 4);
  BOOST_TEST(set->limits.max_retry_ms == 2500);
}
BOOST_AUTO_TEST_CASE(limits_are_bounded) {
  for (const char* bad : {"max_attempts: 0", "max_attempts: 101", "max_retry_ms: -1", "max_retry_ms: 600001"}) {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  default_model: claude-sonnet-5-5\n",
         "  default_model: claude-sonnet-5-5\n  limits: { " + std::string(bad) + " }\n");
    const auto result = compileCatalog(sources);
    BOOST_TEST(!result.ok(), bad);
    BOOST_TEST(dump(result).find("of limits") != std::string::npos, dump(result));
  }
  CatalogSources unknown = baselineSources();
  edit(unknown.gateway, "  default_model: claude-sonnet-5-5\n", "  default_model: claude-sonnet-5-5\n  limits: { attempts: 3 }\n");
  expectError(compileCatalog(unknown), at(unknown.gateway, "attempts: 3"), "unknown key 'attempts' in limits");
}
BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
