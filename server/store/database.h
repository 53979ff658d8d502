#pragma once
// PostgreSQL access shared by the server and the CLI.

#include <string>

namespace sluice::store {

// True when a connection to `url` can be opened and answers `SELECT 1` within a few seconds.
// Never throws; `error` receives the reason on failure.
bool ping(const std::string& url, std::string* error = nullptr);

}  // namespace sluice::store
