#pragma once
// Where integration tests find the built binaries and the source tree. The test ENVIRONMENT
// (tests/CMakeLists.txt) sets SLUICE_BIN_DIR, SLUICE_SOURCE_DIR and SLUICE_FIXTURES_DIR.

#include <string>
#include <string_view>

namespace sluice::test {

// $SLUICE_BIN_DIR, else "bin" next to the current directory's parent (ctest runs in build/tests).
std::string binDir();
// $SLUICE_BIN_DIR/<name>.
std::string binPath(std::string_view name);
// $SLUICE_SOURCE_DIR, else ".".
std::string sourceDir();
// $SLUICE_FIXTURES_DIR, else <sourceDir>/tests/fixtures.
std::string fixturesDir();

}  // namespace sluice::test
