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
using testing::dump;
using testing::expectError;

std::string rule(std::string_view entity) {
  return "  - entity: " + std::string(entity) + "\n    default: closed\n    why: test\n";
}

BOOST_AUTO_TEST_SUITE(link_access_rules)

BOOST_AUTO_TEST_CASE(entity_may_name_any_route_model_or_alias) {
  CatalogSources sources = baselineSources();
  append(sources.access_rules, rule("gateway_route/fast-pool"));
  append(sources.access_rules, rule("gateway_route/claude-haiku-5"));
  append(sources.access_rules, rule("gateway_route/project-odoo-delivery"));
  BOOST_TEST(compileClean(sources)->access_rules.size() == 5u);
}

BOOST_AUTO_TEST_CASE(entity_naming_nothing_is_refused) {
  CatalogSources sources = baselineSources();
  append(sources.access_rules, rule("gateway_route/claude-opus-9"));
  expectError(compileCatalog(sources), at(sources.access_rules, "gateway_route/claude-opus-9"),
              "entity 'gateway_route/claude-opus-9' names no route, model or alias");
}

BOOST_AUTO_TEST_CASE(entity_naming_a_retired_id_points_at_the_replacement) {
  CatalogSources sources = baselineSources();
  append(sources.access_rules, rule("gateway_route/claude-sonnet-4-5"));
  expectError(compileCatalog(sources), at(sources.access_rules, "gateway_route/claude-sonnet-4-5"),
              "names no route, model or alias; 'claude-sonnet-4-5' is retired, replaced by 'claude-sonnet-5-5'");
}

BOOST_AUTO_TEST_CASE(entity_must_be_a_gateway_route) {
  for (std::string_view entity : {"route/fast-pool", "gateway_route/", "fast-pool"}) {
    CatalogSources sources = baselineSources();
    append(sources.access_rules, rule(entity));
    expectError(compileCatalog(sources), atIn(sources.access_rules, "contractors", std::string(entity)),
                "entity '" + std::string(entity) + "' must be gateway_route/<route or model id>, gateway_route/*, mcp_server/<provider> or "
                "mcp_tool/<provider>/<tool>");
  }
}

BOOST_AUTO_TEST_CASE(each_entity_is_declared_once) {
  CatalogSources sources = baselineSources();
  append(sources.access_rules, rule("gateway_route/*"));
  expectError(compileCatalog(sources), at(sources.access_rules, "gateway_route/*", 2),
              "duplicate entity 'gateway_route/*'; first at line 2");
}

BOOST_AUTO_TEST_CASE(entities_are_not_checked_against_a_gateway_that_did_not_load) {
  CatalogSources sources = baselineSources();
  sources.gateway->text = "gateway: [";
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
