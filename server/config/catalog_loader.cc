#include "server/config/catalog_loader.h"

#include <fstream>
#include <optional>
#include <sstream>

extern char** environ;

namespace sluice::config {

namespace {

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<catalog::SourceText> readSource(const std::string& dir, const std::string& relative) {
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  path += "/" + relative;
  auto text = readFile(path);
  if (!text) return std::nullopt;
  return catalog::SourceText{path, std::move(*text)};
}

}  // namespace

catalog::CompileResult loadCatalog(const std::string& services_dir, const std::map<std::string, std::string>& env) {
  catalog::CatalogSources sources;
  sources.credentials = readSource(services_dir, "ai/credentials.yaml");
  sources.providers = readSource(services_dir, "ai/providers.yaml");
  sources.models = readSource(services_dir, "ai/models.yaml");
  sources.deployments = readSource(services_dir, "ai/deployments.yaml");
  sources.gateway = readSource(services_dir, "ai/gateway.yaml");
  sources.access_rules = readSource(services_dir, "access-control/rules.yaml");
  sources.env = env;
  for (const auto& path : catalog::secretFilesReferenced(sources)) {
    if (auto content = readFile(path)) sources.secret_files[path] = std::move(*content);
  }
  return catalog::compileCatalog(sources);
}

std::map<std::string, std::string> processEnvironment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

}  // namespace sluice::config
