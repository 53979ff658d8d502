#include "server/store/audit_store.h"

#include <algorithm>
#include <cstdio>

namespace sluice::store {

const std::vector<std::string_view> kAuditColumns = {
    "id",           "created_at",        "completed_at",       "user_name",         "api_key_id",
    "project",      "project_source",    "client_family",      "client_wire",       "requested_model",
    "model",        "route_id",          "strategy",           "provider",          "endpoint",
    "served_provider", "served_endpoint", "route_match",       "attempts",          "is_streaming",
    "status",       "outcome",           "error_key",          "error_message",     "input_tokens",
    "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_microdollars",
    "cache_savings_microdollars", "latency_ms",   "ttfb_ms",           "upstream_ms",        "aborted",           "probe",
    "request_body", "response_body", "replica", "unit", "units",
};

namespace {

std::string columnList() {
  std::string list;
  for (const auto column : kAuditColumns) {
    if (!list.empty()) list += ", ";
    list += column;
  }
  return list;
}

// The SELECT list over the parsed rows: a key missing from a row object (an older spool line, a
// hand-written one) takes the column's default rather than violating NOT NULL.
std::string selectList() {
  static const std::vector<std::pair<std::string_view, std::string_view>> defaults = {
      {"attempts", "'[]'::jsonb"}, {"is_streaming", "false"},     {"status", "0"},
      {"input_tokens", "0"},       {"output_tokens", "0"},        {"cache_read_tokens", "0"},
      {"cache_write_tokens", "0"}, {"reasoning_tokens", "0"},     {"cost_microdollars", "0"},
      {"cache_savings_microdollars", "0"}, {"aborted", "false"}, {"probe", "false"}, {"units", "0"},
  };
  std::string list;
  for (const auto column : kAuditColumns) {
    if (!list.empty()) list += ", ";
    const auto found = std::find_if(defaults.begin(), defaults.end(), [&](const auto& entry) { return entry.first == column; });
    if (found == defaults.end()) {
      list += column;
    } else {
      list += "coalesce(" + std::string(column) + ", " + std::string(found->second) + ")";
    }
  }
  return list;
}

// Adds the rows of CTE `inserted` (probes excepted) to a rollup table keyed by `period` and the
// `keys` columns, each filled from the expression at the same place in `values` (never NULL).
// Sorted, so concurrent writers lock the rollup rows in the same order and cannot deadlock.
std::string rollupUpsert(const std::string& table, const std::string& period, const std::string& period_expression,
                         const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  std::string key_list;
  std::string value_list;
  std::string positions = "1";
  for (size_t i = 0; i < keys.size(); ++i) {
    key_list += ", " + keys[i];
    value_list += ", " + values[i];
    positions += ", " + std::to_string(i + 2);
  }
  const std::vector<std::string> measures = {"input_tokens",     "output_tokens",     "cache_read_tokens",
                                             "cache_write_tokens", "reasoning_tokens", "cost_microdollars",
                                             "cache_savings_microdollars"};
  std::string measure_list;
  std::string sums;
  std::string updates = "requests = u.requests + excluded.requests, failed = u.failed + excluded.failed";
  for (const auto& measure : measures) {
    measure_list += ", " + measure;
    sums += ", sum(" + measure + ")";
    updates += ", " + measure + " = u." + measure + " + excluded." + measure;
  }
  return "INSERT INTO " + table + " AS u (" + period + key_list + ", requests, failed" + measure_list + ") SELECT " +
         period_expression + value_list + ", count(*), count(*) FILTER (WHERE outcome <> 'ok')" + sums +
         " FROM inserted WHERE NOT probe GROUP BY " + positions + " ORDER BY " + positions + " ON CONFLICT (" + period +
         key_list + ") DO UPDATE SET " + updates;
}

// One statement: parse, insert the new rows, roll the inserted ones up by hour and by day, by
// user, project, model and provider, and by route and served endpoint. Naming the columns (rather
// than SELECT *) lets a later migration add a column with a default without breaking an older
// replica still writing.
const std::string& insertStatement() {
  static const std::vector<std::string> usage_keys = {"user_name", "project", "model", "provider"};
  static const std::vector<std::string> usage_values = {"coalesce(user_name, '')", "coalesce(project, '')",
                                                        "coalesce(model, '')", "coalesce(served_provider, '')"};
  static const std::vector<std::string> route_keys = {"route_id", "endpoint"};
  static const std::vector<std::string> route_values = {"coalesce(route_id, '')", "coalesce(served_endpoint, '')"};
  static const std::string hour = "date_trunc('hour', created_at, 'UTC')";
  static const std::string day = "(created_at AT TIME ZONE 'UTC')::date";
  static const std::string statement =
      "WITH incoming AS (SELECT * FROM json_populate_recordset(NULL::ai_requests, $1::json)), "
      "inserted AS (INSERT INTO ai_requests (" + columnList() + ") SELECT " + selectList() +
      " FROM incoming ON CONFLICT (id, created_at) DO NOTHING "
      "RETURNING created_at, user_name, project, model, route_id, served_provider, served_endpoint, outcome, probe, "
      "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_microdollars, "
      "cache_savings_microdollars), "
      "hourly AS (" + rollupUpsert("ai_usage_hourly", "hour", hour, usage_keys, usage_values) + "), "
      "daily AS (" + rollupUpsert("ai_usage_daily", "day", day, usage_keys, usage_values) + "), "
      "route_hourly AS (" + rollupUpsert("ai_route_usage_hourly", "hour", hour, route_keys, route_values) + "), "
      "route_daily AS (" + rollupUpsert("ai_route_usage_daily", "day", day, route_keys, route_values) + ") "
      "SELECT count(*) FROM inserted";
  return statement;
}

// SQLSTATE 23514 with this text: the row's day has no partition yet.
bool isMissingPartition(const pqxx::sql_error& error) {
  return error.sqlstate() == "23514" && std::string_view(error.what()).find("no partition") != std::string_view::npos;
}

}  // namespace

size_t insertAuditRows(pqxx::connection& connection, const std::string& json_array) {
  for (int attempt = 0;; ++attempt) {
    try {
      pqxx::work transaction(connection);
      const size_t inserted = transaction.exec_params1(insertStatement(), json_array)[0].as<size_t>();
      transaction.commit();
      return inserted;
    } catch (const pqxx::broken_connection&) {
      throw;
    } catch (const pqxx::sql_error& error) {
      if (attempt > 0 || !isMissingPartition(error)) throw;
    }
    pqxx::work transaction(connection);
    transaction.exec_params(
        "SELECT sluice_ensure_ai_requests_partition(day) FROM (SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date "
        "AS day FROM json_populate_recordset(NULL::ai_requests, $1::json)) days ORDER BY day",
        json_array);
    transaction.commit();
  }
}

std::string formatDay(std::chrono::sys_days day) {
  const std::chrono::year_month_day date{day};
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()));
  return text;
}

std::string formatTimestamp(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  const auto micros = time_point_cast<microseconds>(time);
  const auto day = floor<days>(micros);
  const hh_mm_ss<microseconds> clock{micros - day};
  char text[40];
  std::snprintf(text, sizeof text, "%sT%02d:%02d:%02d.%06lldZ", formatDay(day).c_str(), static_cast<int>(clock.hours().count()),
                static_cast<int>(clock.minutes().count()), static_cast<int>(clock.seconds().count()),
                static_cast<long long>(clock.subseconds().count()));
  return text;
}

std::vector<std::string> ensureAuditPartitions(pqxx::connection& connection, std::chrono::sys_days first,
                                               std::chrono::sys_days last) {
  std::vector<std::string> names;
  for (auto day = first; day <= last; day += std::chrono::days(1)) {
    pqxx::work transaction(connection);
    names.push_back(
        transaction.exec_params1("SELECT sluice_ensure_ai_requests_partition($1::date)", formatDay(day))[0].as<std::string>());
    transaction.commit();
  }
  return names;
}

std::vector<std::string> dropAuditPartitionsBefore(pqxx::connection& connection, std::chrono::sys_days cutoff) {
  pqxx::work transaction(connection);
  // Dropping a partition locks the parent; never wait long behind a long query for it.
  transaction.exec("SET LOCAL lock_timeout = '10s'");
  std::vector<std::string> dropped;
  for (const auto& row : transaction.exec_params("SELECT sluice_drop_ai_requests_before($1::date)", formatDay(cutoff))) {
    dropped.push_back(row[0].as<std::string>());
  }
  transaction.commit();
  return dropped;
}

std::vector<std::chrono::sys_days> listAuditPartitions(pqxx::connection& connection) {
  pqxx::nontransaction query(connection);
  std::vector<std::chrono::sys_days> days;
  for (const auto& row : query.exec(
           "SELECT (to_date(substr(c.relname, 13), 'YYYYMMDD') - date '1970-01-01') FROM pg_inherits i "
           "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'ai_requests'::regclass "
           "AND c.relname ~ '^ai_requests_[0-9]{8}$' ORDER BY 1")) {
    days.push_back(std::chrono::sys_days(std::chrono::days(row[0].as<int>())));
  }
  return days;
}

}  // namespace sluice::store
