#pragma once
// The audit trail as the console's Requests page reads it: pages of request summaries, the newest
// rows for the live view, one request in full. Rows cross as JSON objects keyed by column name.
// What a page shows and how it pages is admin's (server/admin/requests_api.cc).
//
// Implementations: PgRequestLog (table ai_requests). Thread-safe. Environment failures throw.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::store {

struct RequestPageQuery {
  int64_t since_seconds = 86400;   // created within this many seconds
  std::optional<int64_t> before;   // the cursor of the last row shown: microseconds since the epoch
  std::optional<std::string> user;
  std::optional<std::string> project;
  std::optional<std::string> model;
  std::optional<std::string> outcome;
  bool probes = false;             // console probes included
  int rows = 50;                   // at most this many rows
};

class RequestLog {
 public:
  virtual ~RequestLog() = default;
  // Request summaries matching `query`, newest first; each has a "cursor" (microseconds since
  // the epoch of created_at) and an "attempt_count".
  virtual std::vector<nlohmann::json> page(const RequestPageQuery& query) = 0;
  // The newest 20 summaries of the last 10 minutes, newest first.
  virtual std::vector<nlohmann::json> latest() = 0;
  // The rows whose id starts with `prefix`, in full (findRequestsByIdPrefix), at most `limit`.
  virtual std::vector<nlohmann::json> byIdPrefix(const std::string& prefix, int limit) = 0;
};

}  // namespace sluice::store
