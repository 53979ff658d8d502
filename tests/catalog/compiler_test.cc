#define BOOST_TEST_MODULE catalog_tests
#include "catalog/compiler.h"

#include <boost/test/unit_test.hpp>

#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::dump;
using testing::edit;
using testing::expectDiagnostic;
using testing::expectError;

std::vector<std::string> routeIds(const Catalog& catalog) {
  std::vector<std::string> ids;
  for (const Route& route : catalog.routes) ids.push_back(route.id);
  return ids;
}

BOOST_AUTO_TEST_SUITE(compiler)

BOOST_AUTO_TEST_CASE(baseline_catalog_compiles_without_diagnostics) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->credentials.size() == 4u);
  BOOST_TEST(catalog->providers.size() == 4u);
  BOOST_TEST(catalog->models.size() == 4u);
  BOOST_TEST(catalog->default_model == "claude-sonnet-5-5");
  BOOST_TEST(catalog->access_rules.size() == 2u);
}

BOOST_AUTO_TEST_CASE(models_keep_file_order) {
  auto catalog = compileClean(baselineSources());
  std::vector<std::string> ids;
  for (const Model& m : catalog->models) ids.push_back(m.id);
  std::vector<std::string> expected = {"claude-sonnet-5-5", "claude-haiku-5", "deepseek-v4-pro",
                                       "deepseek-flash"};
  BOOST_TEST(ids == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(explicit_routes_come_first_then_one_implicit_route_per_model) {
  auto catalog = compileClean(baselineSources());
  std::vector<std::string> expected = {"go-deepseek-v4-pro", "project-odoo-delivery", "fast-pool",
                                       "claude-sonnet-5-5",  "claude-haiku-5",        "deepseek-v4-pro",
                                       "deepseek-flash"};
  BOOST_TEST(routeIds(*catalog) == expected, boost::test_tools::per_element());
  const Route* implicit = catalog->route("claude-haiku-5");
  BOOST_REQUIRE(implicit != nullptr);
  BOOST_TEST(implicit->kind == RouteKind::Implicit);
  BOOST_TEST(implicit->models == std::vector<std::string>{"claude-haiku-5"});
  BOOST_TEST(implicit->deployments.empty());
  BOOST_TEST(implicit->label == "Claude Haiku 5");
  BOOST_TEST(implicit->where.file == "services/ai/models.yaml");
}

BOOST_AUTO_TEST_CASE(missing_required_files_are_each_reported_without_a_line) {
  CatalogSources sources = baselineSources();
  sources.providers.reset();
  sources.gateway.reset();
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  expectError(result, {"services/ai/providers.yaml", 0, 0}, "missing file");
  expectError(result, {"services/ai/gateway.yaml", 0, 0}, "missing file");
}

BOOST_AUTO_TEST_CASE(a_missing_file_does_not_cascade_into_reference_errors) {
  CatalogSources sources = baselineSources();
  sources.providers.reset();
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_CASE(missing_access_rules_file_is_fine) {
  CatalogSources sources = baselineSources();
  sources.access_rules.reset();
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->access_rules.empty());
}

BOOST_AUTO_TEST_CASE(problems_in_several_files_are_all_reported_in_file_order) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "kind: personal", "kind: persnal");
  edit(sources.providers, "wire: anthropic", "wire: anthropik");
  edit(sources.models, "    retired:", "    retird:");
  edit(sources.models, "input_per_million: 0.55", "input_per_million: -1");
  edit(sources.gateway, "default_model: claude-sonnet-5-5", "default_model: nope");
  edit(sources.access_rules, "default: closed", "default: shut");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  expectError(result, at(sources.credentials, "persnal"), "kind of credential 'opencode-go' must be one of: platform, personal");
  expectError(result, at(sources.providers, "anthropik"), "wire of endpoint 'anthropic/api' must be one of");
  expectError(result, at(sources.models, "retird"), "unknown key 'retird' in model 'claude-sonnet-5-5'");
  expectError(result, at(sources.models, "-1"), "input_per_million in pricing of model 'deepseek-v4-pro' must be a non-negative number");
  expectError(result, at(sources.gateway, "nope"), "default_model names undeclared model 'nope'");
  expectError(result, at(sources.access_rules, "shut"), "default of entity 'gateway_route/go-deepseek-v4-pro' must be one of: open, closed");
  BOOST_TEST(result.diagnostics.size() == 6u, dump(result));
  for (size_t i = 1; i < result.diagnostics.size(); ++i) {
    const Diagnostic& a = result.diagnostics[i - 1];
    const Diagnostic& b = result.diagnostics[i];
    if (a.file == b.file) BOOST_TEST(a.line <= b.line);
  }
  BOOST_TEST(result.diagnostics.front().file == "services/ai/credentials.yaml");
  BOOST_TEST(result.diagnostics.back().file == "services/access-control/rules.yaml");
}

BOOST_AUTO_TEST_CASE(syntax_errors_are_located_and_other_files_still_checked) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "clients: [claude]\n", "clients: [claude\n");
  edit(sources.providers, "wire: anthropic", "wire: anthropik");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  bool syntax = false;
  for (const Diagnostic& d : result.diagnostics) {
    if (d.file == "services/ai/models.yaml" && d.message.starts_with("YAML syntax error") && d.line > 0) {
      syntax = true;
    }
  }
  BOOST_TEST(syntax, dump(result));
  expectError(result, at(sources.providers, "anthropik"), "must be one of");
}

BOOST_AUTO_TEST_CASE(version_is_a_twelve_digit_hex_hash_that_follows_the_text) {
  auto first = compileClean(baselineSources());
  auto again = compileClean(baselineSources());
  BOOST_TEST(first->version.size() == 12u);
  BOOST_TEST(first->version.find_first_not_of("0123456789abcdef") == std::string::npos);
  BOOST_TEST(first->version == again->version);
  CatalogSources changed = baselineSources();
  edit(changed.models, "display_name: Claude Haiku 5", "display_name: Claude Haiku Five");
  BOOST_TEST(compileClean(changed)->version != first->version);
}

BOOST_AUTO_TEST_CASE(warnings_alone_do_not_stop_compilation) {
  CatalogSources sources = baselineSources();
  sources.env.erase("DEEPSEEK_EU_KEY");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.ok(), dump(result));
  BOOST_TEST(result.diagnostics.size() == 1u);
  BOOST_TEST(!hasErrors(result.diagnostics));
}

BOOST_AUTO_TEST_CASE(secret_files_referenced_lists_file_paths_after_interpolation) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "  extra:\n    kind: platform\n    secret: file:${SECRETS_DIR:-/etc/sluice}/extra\n");
  std::vector<std::string> expected = {"/run/secrets/deepseek", "/etc/sluice/extra"};
  BOOST_TEST(secretFilesReferenced(sources) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(secret_files_referenced_is_empty_for_unparseable_input) {
  CatalogSources sources = baselineSources();
  sources.credentials->text = "credentials: [";
  BOOST_TEST(secretFilesReferenced(sources).empty());
  sources.credentials.reset();
  BOOST_TEST(secretFilesReferenced(sources).empty());
}

BOOST_AUTO_TEST_CASE(never_throws_on_arbitrary_yaml_shapes) {
  for (std::string_view text : {"", "[]", "42", "credentials: 42", "credentials: [1, 2]",
                                "credentials: {a: [1]}", "credentials: {a: {kind: [x]}}", "? [a]\n: b\n",
                                "credentials: {a: &x {kind: platform}, b: *x}", "---\n...\n"}) {
    CatalogSources sources = baselineSources();
    sources.credentials->text = std::string(text);
    sources.models->text = std::string(text);
    sources.gateway->text = std::string(text);
    BOOST_CHECK_NO_THROW(compileCatalog(sources));
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
