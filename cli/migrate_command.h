#pragma once
// `sluicectl migrate [--status] [--migrations DIR]`: applies the pending schema migrations (the
// ones compiled into sluicectl, or DIR's) under the same advisory lock the server uses.

#include <iosfwd>
#include <string>

namespace sluice::cli {

// Returns 0 when the schema is up to date afterwards (with --status: whether or not it is),
// 1 on a database failure or a failed migration, 2 on invalid input (no URL, unreadable DIR).
int migrate(const std::string& database_url, const std::string& migrations_dir, bool status_only, bool json,
            std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
