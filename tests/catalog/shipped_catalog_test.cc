// The catalog shipped in services/ compiles, with at most warnings (secrets are not set here).
// This test reads files; the compiler it drives does not.

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

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

BOOST_AUTO_TEST_CASE(shipped_catalog_compiles_without_errors) {
  CatalogSources sources;
  sources.credentials = readSource("services/ai/credentials.yaml");
  sources.providers = readSource("services/ai/providers.yaml");
  sources.models = readSource("services/ai/models.yaml");
  sources.deployments = readSource("services/ai/deployments.yaml");
  sources.gateway = readSource("services/ai/gateway.yaml");
  sources.access_rules = readSource("services/access-control/rules.yaml");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.ok(), testing::dump(result));
  for (const Diagnostic& d : result.diagnostics) {
    BOOST_TEST((d.severity == Severity::Warning), d.format());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
