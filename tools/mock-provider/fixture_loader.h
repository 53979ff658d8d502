#pragma once
// Reads a fixture file below the fixtures directory and replays it (fixture_replay.h).

#include <expected>
#include <string>

#include "tools/mock-provider/fixture_replay.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {

// Fails with a message when `relative` is absolute or climbs out with "..", when the file cannot
// be read, or when replayFixture fails.
std::expected<Replay, std::string> loadFixture(const std::string& fixtures_dir, const std::string& relative, Wire wire,
                                               int interaction);

}  // namespace sluice::mock
