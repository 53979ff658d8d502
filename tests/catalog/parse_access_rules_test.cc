#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectDiagnostic;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_access_rules)

BOOST_AUTO_TEST_CASE(rules_are_read_in_file_order) {
  CatalogSources sources = baselineSources();
  auto catalog = compileClean(sources);
  BOOST_REQUIRE(catalog->access_rules.size() == 2u);
  const AccessRule& everyone = catalog->access_rules[0];
  BOOST_TEST(everyone.entity == "gateway_route/*");
  BOOST_TEST(everyone.default_access == AccessDefault::Open);
  BOOST_TEST(everyone.why == "Every model route is reachable by every signed-in member.");
  const AccessRule& go = catalog->access_rules[1];
  BOOST_TEST(go.entity == "gateway_route/go-deepseek-v4-pro");
  BOOST_TEST(go.default_access == AccessDefault::Closed);
  BOOST_TEST(go.allow.group == std::vector<std::string>{"engineering"});
  BOOST_TEST(go.deny.project == std::vector<std::string>{"contractors"});
  BOOST_TEST(go.allow.person.empty());
  BOOST_TEST(go.where.line == at(sources.access_rules, "entity: gateway_route/go").line);
}

BOOST_AUTO_TEST_CASE(bands_accept_a_single_name_or_a_list) {
  CatalogSources sources = baselineSources();
  edit(sources.access_rules, "allow: { group: [engineering] }",
       "allow: { group: engineering, person: [ada, grace], role: admin }");
  auto catalog = compileClean(sources);
  const AccessBands& allow = catalog->access_rules[1].allow;
  BOOST_TEST(allow.group == std::vector<std::string>{"engineering"});
  BOOST_TEST(allow.person == (std::vector<std::string>{"ada", "grace"}));
  BOOST_TEST(allow.role == std::vector<std::string>{"admin"});
}

BOOST_AUTO_TEST_CASE(unknown_band_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.access_rules, "deny: { project: [contractors] }", "deny: { team: [contractors] }");
  expectError(compileCatalog(sources), at(sources.access_rules, "team"),
              "unknown key 'team' in deny of entity 'gateway_route/go-deepseek-v4-pro'; expected one of: person, project, group, role");
}

BOOST_AUTO_TEST_CASE(default_is_required) {
  CatalogSources sources = baselineSources();
  edit(sources.access_rules, "    default: open\n", "");
  expectError(compileCatalog(sources), at(sources.access_rules, "entity: gateway_route/*"),
              "entity 'gateway_route/*' needs default: open or closed");
}

BOOST_AUTO_TEST_CASE(missing_why_is_a_warning) {
  CatalogSources sources = baselineSources();
  edit(sources.access_rules, "    why: Personal Go keys are for the engineering group.\n", "");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.access_rules, "entity: gateway_route/go"),
                   "entity 'gateway_route/go-deepseek-v4-pro' has no why");
}

BOOST_AUTO_TEST_CASE(entity_is_required) {
  CatalogSources sources = baselineSources();
  append(sources.access_rules, "  - default: open\n    why: x\n");
  expectError(compileCatalog(sources), at(sources.access_rules, "default: open", 2), "entity #3 needs entity:");
}

BOOST_AUTO_TEST_CASE(entities_must_be_a_list) {
  CatalogSources sources = baselineSources();
  sources.access_rules->text = "entities: {}\n";
  expectError(compileCatalog(sources), {"services/access-control/rules.yaml", 1, 11},
              "entities must be a list, got a mapping");
}

BOOST_AUTO_TEST_CASE(an_empty_rules_file_is_refused_like_any_other) {
  CatalogSources sources = baselineSources();
  sources.access_rules->text = "";
  expectError(compileCatalog(sources), {"services/access-control/rules.yaml", 0, 0}, "file is empty");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
