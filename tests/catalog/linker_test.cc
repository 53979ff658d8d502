#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::dump;
using testing::edit;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(linker)

BOOST_AUTO_TEST_CASE(provider_credential_must_be_declared) {
  CatalogSources sources = baselineSources();
  edit(sources.providers, "credential: deepseek-eu", "credential: deepseek-europe");
  expectError(compileCatalog(sources), at(sources.providers, "deepseek-europe"),
              "provider 'deepseek-eu' references unknown credential 'deepseek-europe'; declared credentials: "
              "anthropic, deepseek, deepseek-eu, opencode-go");
}

BOOST_AUTO_TEST_CASE(retired_id_cannot_be_a_declared_model) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "retired: [claude-sonnet-4-5, claude-sonnet-4]", "retired: [claude-sonnet-4-5, claude-haiku-5]");
  expectError(compileCatalog(sources), at(sources.models, "claude-haiku-5]"),
              "retired id 'claude-haiku-5' of model 'claude-sonnet-5-5' collides with model 'claude-haiku-5' declared at "
              "services/ai/models.yaml:16:3");
}

BOOST_AUTO_TEST_CASE(retired_id_is_retired_by_one_model_only) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "    clients: [claude, opencode]\n", "    clients: [claude, opencode]\n    retired: [claude-sonnet-4]\n");
  Location first = at(sources.models, "claude-sonnet-4]");
  expectError(compileCatalog(sources), at(sources.models, "claude-sonnet-4]", 2),
              "retired id 'claude-sonnet-4' of model 'claude-haiku-5' is already retired by model 'claude-sonnet-5-5' at "
              "services/ai/models.yaml:" + std::to_string(first.line) + ":" + std::to_string(first.column));
}

BOOST_AUTO_TEST_CASE(retired_id_listed_twice_in_one_model_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "retired: [claude-sonnet-4-5, claude-sonnet-4]", "retired: [claude-sonnet-4, claude-sonnet-4]");
  expectError(compileCatalog(sources), at(sources.models, "claude-sonnet-4]"),
              "retired id 'claude-sonnet-4' of model 'claude-sonnet-5-5' is already retired by model 'claude-sonnet-5-5'");
}

BOOST_AUTO_TEST_CASE(a_model_file_that_did_not_load_causes_no_reference_errors_elsewhere) {
  CatalogSources sources = baselineSources();
  sources.models->text = "models:\n  a: [\n";
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
  BOOST_TEST(result.diagnostics[0].message.starts_with("YAML syntax error"));
}

BOOST_AUTO_TEST_CASE(a_credentials_file_that_did_not_load_causes_no_reference_errors_elsewhere) {
  CatalogSources sources = baselineSources();
  sources.credentials->text = "credentials: 3\n";
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
  expectError(result, {"services/ai/credentials.yaml", 1, 14}, "credentials must be a mapping, got '3'");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
