#pragma once
// Writing the audit trail (`ai_requests`, migrations/0001) and keeping its day partitions.
// The rows travel as COPY text or as JSON objects whose keys are the column names; which columns,
// in which order, is the caller's (audit::auditColumns(), server/audit/fields.h, declares the row).

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/pqxx>

namespace sluice::store {

// One column of ai_requests as a writer names it.
struct AuditColumn {
  std::string_view name;
  std::string_view type;      // as information_schema.columns.data_type spells it: "text", "bigint", …
  // SQL for the value of a row object without this key: the default of a NOT NULL column ("0",
  // "false", "'[]'::jsonb"); empty: NULL.
  std::string_view fallback;
};

// Inserts the rows of `json_array` (a JSON array of row objects keyed by the names of `columns`;
// a missing key is the column's fallback) into those columns in one statement, skipping rows
// whose (id, created_at) is already present, and adds the rows actually inserted (probes excepted)
// to ai_usage_hourly and ai_usage_daily (by user, project, model, provider) and to
// ai_route_usage_hourly and ai_route_usage_daily (by route and served endpoint) in the same
// statement. Creates a missing day partition and retries once.
// Returns the number of rows inserted. Throws pqxx::broken_connection when PostgreSQL is gone,
// pqxx::sql_error on anything else (a statement_timeout among them).
size_t insertAuditRows(pqxx::connection& connection, std::span<const AuditColumn> columns,
                       const std::string& json_array);

// What one row adds to the usage rollups: the keys (empty = '') and the seven measures, in the
// order input, output, cache read, cache write, reasoning tokens, cost, cache savings.
struct RollupFacts {
  std::chrono::system_clock::time_point created_at{};
  bool probe = false;   // probes are left out of the rollups
  bool failed = false;  // outcome other than ok
  std::string user_name, project, model, provider;  // ai_usage_* keys (provider: the served one)
  std::string route_id, endpoint;                   // ai_route_usage_* keys (endpoint: the served one)
  std::array<int64_t, 7> measures{};
};

// The live path: `copy_text` (lines of COPY text in `columns` order, each ending in '\n', one
// per row of `facts`) streamed into ai_requests with COPY, and the rows' rollups, summed here,
// upserted in the same transaction: about a third of insertAuditRows' work in PostgreSQL, which
// parses JSON row by row. COPY has no ON CONFLICT: for rows that may already be there (a replay)
// use insertAuditRows. Creates a missing day partition and retries once.
// Throws like insertAuditRows; a row already present is pqxx::unique_violation (nothing written).
void copyAuditRows(pqxx::connection& connection, std::span<const AuditColumn> columns, const std::string& copy_text,
                   const std::vector<RollupFacts>& facts);

// Creates the day partitions (UTC) from `first` to `last` inclusive when missing; returns their names.
std::vector<std::string> ensureAuditPartitions(pqxx::connection& connection, std::chrono::sys_days first,
                                               std::chrono::sys_days last);

// Drops the day partitions before `cutoff` and the hourly and daily rollups before it; returns the
// names dropped.
std::vector<std::string> dropAuditPartitionsBefore(pqxx::connection& connection, std::chrono::sys_days cutoff);

// The existing day partitions, oldest first (their UTC dates).
std::vector<std::chrono::sys_days> listAuditPartitions(pqxx::connection& connection);

// "YYYY-MM-DD".
std::string formatDay(std::chrono::sys_days day);

// "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" (UTC, microseconds): how timestamps travel to PostgreSQL.
std::string formatTimestamp(std::chrono::system_clock::time_point time);

}  // namespace sluice::store
