#include "tests/docs/repository_files.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <utility>

namespace sluice::docs {

std::string repositoryFile(const std::string& relative) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

catalog::CatalogSources shippedCatalogSources() {
  catalog::CatalogSources sources;
  const std::pair<std::optional<catalog::SourceText> catalog::CatalogSources::*, const char*> files[] = {
      {&catalog::CatalogSources::credentials, "services/ai/credentials.yaml"},
      {&catalog::CatalogSources::providers, "services/ai/providers.yaml"},
      {&catalog::CatalogSources::models, "services/ai/models.yaml"},
      {&catalog::CatalogSources::deployments, "services/ai/deployments.yaml"},
      {&catalog::CatalogSources::gateway, "services/ai/gateway.yaml"},
      {&catalog::CatalogSources::access_rules, "services/access-control/rules.yaml"},
  };
  for (const auto& [member, path] : files) sources.*member = catalog::SourceText{path, repositoryFile(path)};
  return sources;
}

}  // namespace sluice::docs
