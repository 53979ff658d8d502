#include "tools/mock-provider/fixture_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sluice::mock {

std::expected<Replay, std::string> loadFixture(const std::string& fixtures_dir, const std::string& relative, Wire wire,
                                               int interaction) {
  const std::filesystem::path rel(relative);
  if (relative.empty() || rel.is_absolute()) return std::unexpected("fixture must be a relative path: " + relative);
  for (const auto& part : rel)
    if (part == "..") return std::unexpected("fixture path must not contain '..': " + relative);
  const std::filesystem::path full = std::filesystem::path(fixtures_dir) / rel;
  std::ifstream file(full, std::ios::binary);
  if (!file) return std::unexpected("cannot read fixture " + full.string());
  std::ostringstream content;
  content << file.rdbuf();
  auto replay = replayFixture(wire, rel.filename().string(), content.str(), interaction);
  if (!replay) return std::unexpected("fixture " + relative + ": " + replay.error());
  return replay;
}

}  // namespace sluice::mock
