#pragma once
// The gateway's command line: every flag, its SLUICE_* environment variable and its default.
// Flags, environment variable names and exit codes are public API (tests and operators use them).

#include <optional>

#include "server/boot/settings.h"

namespace sluice::boot {

// Fills `settings` from argv and the environment. Returns an exit code when the process should
// stop now: 0 after --help, 2 for a bad flag (CLI11 printed why) or when neither --database-url
// nor --insecure-no-auth was given (printed to stderr); nullopt to go on.
std::optional<int> parseFlags(int argc, char** argv, Settings& settings);

}  // namespace sluice::boot
