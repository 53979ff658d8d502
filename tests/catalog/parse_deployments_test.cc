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
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_deployments)

BOOST_AUTO_TEST_CASE(short_and_long_forms_build_the_failover_chain) {
  CatalogSources sources = baselineSources();
  auto catalog = compileClean(sources);
  const auto& chain = catalog->deploymentsOf("deepseek-v4-pro");
  BOOST_REQUIRE(chain.size() == 2u);
  BOOST_TEST(chain[0].model_id == "deepseek-v4-pro");
  BOOST_TEST(chain[0].endpoint_key == "deepseek/api");
  BOOST_TEST(chain[0].provider_id == "deepseek");
  BOOST_TEST(chain[0].endpoint_id == "api");
  BOOST_TEST(chain[0].where.line == at(sources.deployments, "deepseek/api").line);
  BOOST_TEST(chain[1].endpoint_key == "opencode-go/chat");
  BOOST_TEST(chain[1].provider_id == "opencode-go");
  BOOST_TEST(chain[1].endpoint_id == "chat");
}

BOOST_AUTO_TEST_CASE(upstream_model_defaults_to_the_models_and_can_be_overridden) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->deploymentsOf("claude-sonnet-5-5")[0].upstream_model == "claude-sonnet-5-5-20260101");
  BOOST_TEST(catalog->deploymentsOf("claude-haiku-5")[0].upstream_model == "claude-haiku-5");
  BOOST_TEST(catalog->deployment("deepseek-v4-pro", "deepseek/api")->upstream_model == "deepseek-v4-pro");
  BOOST_TEST(catalog->deployment("deepseek-v4-pro", "opencode-go/chat")->upstream_model == "deepseek-v4-pro-go");
}

BOOST_AUTO_TEST_CASE(long_form_needs_an_endpoint) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "    - endpoint: opencode-go/chat\n      upstream_model", "    - upstream_model");
  expectError(compileCatalog(sources), at(sources.deployments, "upstream_model"),
              "deployment of model 'deepseek-v4-pro' needs endpoint: provider/endpoint");
}

BOOST_AUTO_TEST_CASE(unknown_key_in_a_deployment_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "      upstream_model: deepseek-v4-pro-go\n",
       "      upstream_model: deepseek-v4-pro-go\n      weight: 2\n");
  expectError(compileCatalog(sources), at(sources.deployments, "weight"),
              "unknown key 'weight' in deployment of model 'deepseek-v4-pro'; expected one of: endpoint, upstream_model, pricing");
}

BOOST_AUTO_TEST_CASE(deployments_of_a_model_must_be_a_list) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: anthropic/api");
  expectError(compileCatalog(sources), at(sources.deployments, "anthropic/api", 2),
              "deployments of model 'claude-haiku-5' must be a list of endpoints, got 'anthropic/api'");
}

BOOST_AUTO_TEST_CASE(a_nested_list_is_not_a_deployment) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "[deepseek/api, deepseek-eu/api]", "[deepseek/api, [deepseek-eu/api]]");
  expectError(compileCatalog(sources), at(sources.deployments, "[deepseek-eu/api]"),
              "deployment of model 'deepseek-flash' must be 'provider/endpoint' or a mapping with endpoint:, got a list");
}

BOOST_AUTO_TEST_CASE(an_empty_upstream_model_override_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.deployments, "upstream_model: deepseek-v4-pro-go", "upstream_model: \"\"");
  expectError(compileCatalog(sources), at(sources.deployments, "\"\""),
              "upstream_model of deployment 'opencode-go/chat' of model 'deepseek-v4-pro' must not be empty");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
