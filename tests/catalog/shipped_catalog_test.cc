// The catalog shipped in services/ compiles, with at most warnings (secrets are not set here).
// This test reads files; the compiler it drives does not.

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string_view>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

std::optional<SourceText> readSource(const std::string& relative) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return SourceText{relative, text.str()};
}

BOOST_AUTO_TEST_SUITE(shipped_catalog)

CatalogSources shippedSources() {
  CatalogSources sources;
  sources.credentials = readSource("services/ai/credentials.yaml");
  sources.providers = readSource("services/ai/providers.yaml");
  sources.models = readSource("services/ai/models.yaml");
  sources.deployments = readSource("services/ai/deployments.yaml");
  sources.gateway = readSource("services/ai/gateway.yaml");
  sources.access_rules = readSource("services/access-control/rules.yaml");
  return sources;
}

BOOST_AUTO_TEST_CASE(shipped_catalog_compiles_without_errors) {
  CompileResult result = compileCatalog(shippedSources());
  BOOST_TEST(result.ok(), testing::dump(result));
  for (const Diagnostic& d : result.diagnostics) {
    BOOST_TEST((d.severity == Severity::Warning), d.format());
    BOOST_TEST(d.message.find("deprecated") == std::string::npos, d.format());  // examples use today's keys
  }
}

BOOST_AUTO_TEST_CASE(every_shipped_model_is_listed_to_a_generic_openai_client) {
  CompileResult result = compileCatalog(shippedSources());
  BOOST_REQUIRE(result.ok());
  for (const Model& model : result.catalog->models) {
    BOOST_TEST(model.advertisedTo(ClientFamily::OpenAI), model.id);
  }
}

// gateway.yaml carries a commented narrowing example; uncommented, it must compile as it says.
BOOST_AUTO_TEST_CASE(the_commented_narrowing_example_compiles_once_uncommented) {
  CatalogSources sources = shippedSources();
  BOOST_REQUIRE(sources.gateway);
  std::string& text = sources.gateway->text;
  size_t uncommented = 0;
  for (size_t at = text.find("    # - id:"); at != std::string::npos; at = text.find("\n    # ", at)) {
    if (text[at] == '\n') ++at;
    const std::string_view rest = std::string_view(text).substr(at + 6);
    if (!rest.starts_with("- ") && !rest.starts_with("  ")) break;  // back to prose
    text.erase(at + 4, 2);
    ++uncommented;
  }
  BOOST_REQUIRE(uncommented >= 3u);
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE_MESSAGE(result.ok(), testing::dump(result));
  const Route* route = result.catalog->route("eu-pilot-deepseek");
  BOOST_REQUIRE(route != nullptr);
  BOOST_TEST((route->kind == RouteKind::Scoped));
  BOOST_REQUIRE(route->deployments.size() == 1u);
  BOOST_TEST(route->deployments[0].endpoint_key == "deepseek/api");
  // What the comment promises for a deployment outside the model's list.
  const size_t pinned = text.find("deployments: [deepseek/api]");
  text.replace(pinned, 27, "deployments: [gemini/api]");
  testing::expectError(compileCatalog(sources), testing::at(sources.gateway, "gemini/api]"),
                       "is not a deployment of model 'deepseek-v4-pro'; its deployments: deepseek/api, opencode-go/chat");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
