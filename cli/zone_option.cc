#include "cli/zone_option.h"

#include <fstream>

namespace sluice::cli {

std::expected<std::shared_ptr<const catalog::ZoneRules>, std::string> loadZone(std::string_view name,
                                                                                const std::string& zoneinfo) {
  if (name == "UTC" || name == "Etc/UTC") return nullptr;
  if (!catalog::isZoneName(name)) {
    return std::unexpected("--timezone must be an IANA name such as Europe/Paris or UTC, got '" +
                           std::string(name.substr(0, 64)) + "'");
  }
  std::ifstream file(zoneinfo + "/" + std::string(name), std::ios::binary);
  if (!file) return std::unexpected("--timezone " + std::string(name) + ": no such zone in " + zoneinfo);
  std::string bytes(catalog::kMaxZoneFileBytes + 1, '\0');
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(file.gcount()));
  auto rules = catalog::parseTzif(name, bytes);
  if (!rules) return std::unexpected("--timezone " + std::string(name) + ": " + rules.error());
  return std::make_shared<const catalog::ZoneRules>(std::move(*rules));
}

}  // namespace sluice::cli
