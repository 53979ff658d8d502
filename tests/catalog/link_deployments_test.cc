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

BOOST_AUTO_TEST_SUITE(link_deployments)

BOOST_AUTO_TEST_CASE(deployments_of_an_undeclared_model_are_refused) {
  CatalogSources sources = baselineSources();
  append(sources.deployments, "  claude-opus-9: [anthropic/api]\n");
  expectError(compileCatalog(sources), at(sources.deployments, "claude-opus-9"),
              "deployments for undeclared model 'claude-opus-9'; declare it in models.yaml");
}

BOOST_AUTO_TEST_CASE(deployments_of_a_retired_id_point_at_the_replacement) {
  CatalogSources sources = baselineSources();
  append(sources.deployments, "  claude-sonnet-4: [anthropic/api]\n");
  expectError(compileCatalog(sources), at(sources.deployments, "claude-sonnet-4:"),
              "deployments for undeclared model 'claude-sonnet-4'; 'claude-sonnet-4' is retired, replaced by 'claude-sonnet-5-5'");
}

BOOST_AUTO_TEST_CASE(unknown_provider_is_refused_with_the_declared_ones) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: [antropic/api]");
  expectError(compileCatalog(sources), at(sources.deployments, "antropic/api"),
              "deployment of model 'claude-haiku-5': unknown provider 'antropic' in endpoint 'antropic/api'; "
              "declared providers: anthropic, deepseek, deepseek-eu, opencode-go");
}

BOOST_AUTO_TEST_CASE(unknown_endpoint_is_refused_with_the_providers_endpoints) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "endpoint: opencode-go/chat", "endpoint: opencode-go/messages");
  expectError(compileCatalog(sources), at(sources.deployments, "opencode-go/messages"),
              "deployment of model 'deepseek-v4-pro': provider 'opencode-go' has no endpoint 'messages'; its endpoints: chat, responses");
}

BOOST_AUTO_TEST_CASE(endpoint_must_be_written_provider_slash_endpoint) {
  for (std::string_view bad : {"anthropic", "anthropic/api/x", "/api", "anthropic/"}) {
    CatalogSources sources = baselineSources();
    edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: [\"" + std::string(bad) + "\"]");
    expectError(compileCatalog(sources), at(sources.deployments, "\"" + std::string(bad)),
                "endpoint '" + std::string(bad) + "' must be written 'provider/endpoint'");
  }
}

BOOST_AUTO_TEST_CASE(a_deployment_appears_once_per_model) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "[deepseek/api, deepseek-eu/api]", "[deepseek/api, deepseek-eu/api, deepseek/api]");
  Location second = at(sources.deployments, "deepseek/api", 3);
  expectError(compileCatalog(sources), second,
              "deployment 'deepseek/api' appears twice in model 'deepseek-flash'; first at line " + std::to_string(second.line));
}

BOOST_AUTO_TEST_CASE(every_model_needs_a_deployment) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "  claude-haiku-5: [anthropic/api]\n", "");
  expectError(compileCatalog(sources), at(sources.models, "claude-haiku-5:"),
              "model 'claude-haiku-5' has no deployments; list at least one endpoint for it in deployments.yaml");
}

BOOST_AUTO_TEST_CASE(an_empty_deployment_list_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: []");
  CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.deployments, "claude-haiku-5"), "model 'claude-haiku-5' has no deployments");
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_CASE(a_bad_endpoint_does_not_also_report_the_model_as_undeployed) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: [anthropic/nope]");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
