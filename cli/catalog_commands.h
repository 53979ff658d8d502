#pragma once
// `sluicectl catalog check` and `sluicectl catalog explain`.

#include <iosfwd>
#include <optional>
#include <string>

#include "cli/quota_explain.h"

namespace sluice::cli {

// Prints every diagnostic (file:line:col) to `err`; returns 0 when the catalog is valid, 2 when not.
int catalogCheck(const std::string& services_dir, bool json, std::ostream& out, std::ostream& err);

// Prints the dispatch plan the server would use for MODEL, then the quota windows and which limit
// of each applies to `who` (its project is the plan's); returns 0, or 2 when the model or the
// catalog is invalid.
int catalogExplain(const std::string& services_dir, const std::string& model, const QuotaWho& who, bool json,
                   std::ostream& out, std::ostream& err);

// gateway.telemetry.trace_url of the catalog in `services_dir`; "" when there is none or the
// catalog does not load (the audit command then shows the trace id without a link).
std::string catalogTraceUrl(const std::string& services_dir);

}  // namespace sluice::cli
