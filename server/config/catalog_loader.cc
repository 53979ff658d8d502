#include "server/config/catalog_loader.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "catalog/zone_rules.h"
#include "server/protection/detectors.h"

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

// At most `limit` bytes of the file (a longer one is cut there; the caller compares the size).
std::optional<std::string> readFilePrefix(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
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
  readSecretFiles(sources);
  auto result = catalog::compileCatalog(sources);
  attachDataProtection(result);
  attachTimeZones(result);
  return result;
}

void readSecretFiles(catalog::CatalogSources& sources) {
  for (const auto& path : catalog::secretFilesReferenced(sources)) {
    if (auto content = readFilePrefix(path, catalog::kMaxVaultFileBytes + 1)) sources.secret_files[path] = std::move(*content);
  }
}

void attachDataProtection(catalog::CompileResult& result) {
  if (!result.ok() || !result.catalog->data_protection) return;
  const catalog::DataProtection& declared = *result.catalog->data_protection;
  std::set<protection::Kind> kinds;
  for (const std::string& name : declared.mask) {
    // The catalog accepts only the kinds of catalog::kMaskKinds, each one a protection::Kind.
    if (const auto kind = protection::kindFromString(name)) kinds.insert(*kind);
  }
  auto detector = protection::Detector::create(kinds, protection::parseVault(declared.vault_text));
  if (!detector) {
    result.diagnostics.push_back({catalog::Severity::Error, declared.vault_at.file, declared.vault_at.line,
                                  declared.vault_at.column, "vault of data_protection is refused: " + detector.error()});
    result.catalog.reset();
    return;
  }
  // The catalog is immutable once shared; this copy is the one that will be.
  auto attached = std::make_shared<catalog::Catalog>(*result.catalog);
  attached->data_protection->detector = std::make_shared<const protection::Detector>(std::move(*detector));
  result.catalog = std::move(attached);
}

std::expected<catalog::ZoneRules, std::string> loadTimeZone(const std::string& name, const std::string& zoneinfo) {
  // isZoneName(): no '..', no leading '/', so the path stays in `zoneinfo`.
  if (!catalog::isZoneName(name)) return std::unexpected("not an IANA time zone name such as Europe/Paris");
  const auto bytes = readFilePrefix(zoneinfo + "/" + name, catalog::kMaxZoneFileBytes + 1);
  if (!bytes) return std::unexpected("no such zone in the system tz database (" + zoneinfo + ")");
  return catalog::parseTzif(name, *bytes);
}

void attachTimeZones(catalog::CompileResult& result, const std::string& zoneinfo) {
  if (!result.ok()) return;
  const auto needs = [](const catalog::QuotaWindow& window) {
    return window.period != catalog::QuotaPeriod::Seconds && window.timezone != "UTC";
  };
  if (std::ranges::none_of(result.catalog->quotas.windows, needs)) return;
  // The catalog is immutable once shared; this copy is the one that will be.
  auto attached = std::make_shared<catalog::Catalog>(*result.catalog);
  std::map<std::string, std::shared_ptr<const catalog::ZoneRules>> loaded;
  bool failed = false;
  for (catalog::QuotaWindow& window : attached->quotas.windows) {
    if (!needs(window)) continue;
    auto& zone = loaded[window.timezone];
    if (!zone) {
      std::expected<catalog::ZoneRules, std::string> rules = loadTimeZone(window.timezone, zoneinfo);
      if (!rules) {
        result.diagnostics.push_back({catalog::Severity::Error, window.timezone_at.file, window.timezone_at.line,
                                      window.timezone_at.column,
                                      "timezone '" + window.timezone + "' of quota window '" + window.id +
                                          "' cannot be used: " + rules.error()});
        failed = true;
        continue;
      }
      zone = std::make_shared<const catalog::ZoneRules>(std::move(*rules));
    }
    window.zone = zone;
  }
  if (failed) {
    result.catalog.reset();
    return;
  }
  result.catalog = std::move(attached);
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
