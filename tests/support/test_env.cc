#include "tests/support/test_env.h"

#include <cstdlib>

namespace sluice::test {
namespace {

std::string envOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : std::move(fallback);
}

}  // namespace

std::string binDir() { return envOr("SLUICE_BIN_DIR", "../bin"); }
std::string binPath(std::string_view name) { return binDir() + "/" + std::string(name); }
std::string sourceDir() { return envOr("SLUICE_SOURCE_DIR", "."); }
std::string fixturesDir() { return envOr("SLUICE_FIXTURES_DIR", sourceDir() + "/tests/fixtures"); }

}  // namespace sluice::test
