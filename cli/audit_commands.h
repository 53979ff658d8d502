#pragma once
// The audit trail on the command line: `sluicectl audit ID|PREFIX` and `sluicectl requests list`
// (`sluicectl usage` is cli/usage_command.h). Each returns the process exit code: 0 success, 1 runtime failure (database
// unreachable or failing, no such request), 2 invalid input (no URL, bad duration or dimension,
// an ambiguous prefix).

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/database_session.h"

namespace sluice::cli {

using TimePoint = std::chrono::system_clock::time_point;

// One request, everything the row holds, with cost in dollars and the gateway's overhead, and a
// link to its trace when `trace_url` (gateway.telemetry.trace_url's form) is given.
int auditShow(const std::string& database_url, const std::string& id_or_prefix, const std::string& trace_url,
              bool json, std::ostream& out, std::ostream& err);

struct RequestsListOptions {
  std::string since = "1h";
  std::optional<std::string> user;
  std::optional<std::string> project;
  std::optional<std::string> model;
  std::optional<std::string> outcome;
  std::optional<std::string> endpoint;
  int limit = 100;
};

// Newest first. `now` is the end of the window (the real clock outside tests).
int requestsList(const std::string& database_url, const RequestsListOptions& options, OutputFormat format,
                 TimePoint now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
