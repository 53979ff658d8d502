#pragma once
// `sluicectl usage`: requests, tokens, cost, cache hit ratio (cache-read share of prompt tokens) and
// cache savings per member|project|group|model|provider|key|route|deployment over a time range,
// costliest first, with totals. Returns the exit code: 0 success, 1 database failure, 2 invalid
// input (a bad date, range, dimension or --top, and the message says which).

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/database_session.h"

namespace sluice::cli {

struct UsageOptions {
  std::optional<std::string> since;  // a named period (today, yesterday, …), a duration or a date
  std::optional<std::string> from;   // a date or instant, UTC
  std::optional<std::string> until;  // exclusive
  std::optional<std::string> timezone;  // an IANA name: where days begin (default UTC)
  std::string by = "user";           // "member" is the same as "user"
  int top = 0;                       // 0: every row
};

// `now` is the clock reading (the real one outside tests); neither since nor from: the last 30 days.
int usageReport(const std::string& database_url, const UsageOptions& options, OutputFormat format,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err);

}  // namespace sluice::cli
