#include "server/store/audit_store.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <pqxx/tablewriter>

namespace sluice::store {

namespace {

std::string columnList(std::span<const AuditColumn> columns) {
  std::string list;
  for (const auto& column : columns) {
    if (!list.empty()) list += ", ";
    list += column.name;
  }
  return list;
}

// The SELECT list over the parsed rows: a key missing from a row object (an older spool line, a
// hand-written one) takes the column's fallback rather than violating NOT NULL.
std::string selectList(std::span<const AuditColumn> columns) {
  std::string list;
  for (const auto& column : columns) {
    if (!list.empty()) list += ", ";
    if (column.fallback.empty()) {
      list += column.name;
    } else {
      list += "coalesce(" + std::string(column.name) + ", " + std::string(column.fallback) + ")";
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
std::string insertStatement(std::span<const AuditColumn> columns) {
  static const std::vector<std::string> usage_keys = {"user_name", "project", "model", "provider"};
  static const std::vector<std::string> usage_values = {"coalesce(user_name, '')", "coalesce(project, '')",
                                                        "coalesce(model, '')", "coalesce(served_provider, '')"};
  static const std::vector<std::string> route_keys = {"route_id", "endpoint"};
  static const std::vector<std::string> route_values = {"coalesce(route_id, '')", "coalesce(served_endpoint, '')"};
  static const std::string hour = "date_trunc('hour', created_at, 'UTC')";
  static const std::string day = "(created_at AT TIME ZONE 'UTC')::date";
  return
      "WITH incoming AS (SELECT * FROM json_populate_recordset(NULL::ai_requests, $1::json)), "
      "inserted AS (INSERT INTO ai_requests (" + columnList(columns) + ") SELECT " + selectList(columns) +
      " FROM incoming ON CONFLICT (id, created_at) DO NOTHING "
      "RETURNING created_at, user_name, project, model, route_id, served_provider, served_endpoint, outcome, probe, "
      "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_microdollars, "
      "cache_savings_microdollars), "
      "hourly AS (" + rollupUpsert("ai_usage_hourly", "hour", hour, usage_keys, usage_values) + "), "
      "daily AS (" + rollupUpsert("ai_usage_daily", "day", day, usage_keys, usage_values) + "), "
      "route_hourly AS (" + rollupUpsert("ai_route_usage_hourly", "hour", hour, route_keys, route_values) + "), "
      "route_daily AS (" + rollupUpsert("ai_route_usage_daily", "day", day, route_keys, route_values) + ") "
      "SELECT count(*) FROM inserted";
}

// SQLSTATE 23514 with this text: the row's day has no partition yet.
bool isMissingPartition(const pqxx::sql_error& error) {
  return error.sqlstate() == "23514" && std::string_view(error.what()).find("no partition") != std::string_view::npos;
}

const std::array<std::string_view, 7> kMeasures = {"input_tokens",       "output_tokens",    "cache_read_tokens",
                                                    "cache_write_tokens", "reasoning_tokens", "cost_microdollars",
                                                    "cache_savings_microdollars"};

struct Sums {
  int64_t requests = 0;
  int64_t failed = 0;
  std::array<int64_t, 7> measures{};

  void add(const RollupFacts& facts) {
    ++requests;
    if (facts.failed) ++failed;
    for (size_t i = 0; i < measures.size(); ++i) measures[i] += facts.measures[i];
  }
};

// "INSERT ... VALUES (...), ... ON CONFLICT (...) DO UPDATE" for one rollup table. The rows come
// sorted (std::map), so concurrent writers lock them in the same order and cannot deadlock.
template <typename Key>
void appendUpsert(std::string& sql, pqxx::transaction_base& transaction, const std::string& table,
                  const std::string& period, const std::string& period_type, const std::vector<std::string>& keys,
                  const std::map<Key, Sums>& rows) {
  if (rows.empty()) return;
  std::string key_list;
  for (const auto& key : keys) key_list += ", " + key;
  std::string measure_list;
  std::string updates = "requests = u.requests + excluded.requests, failed = u.failed + excluded.failed";
  for (const auto measure : kMeasures) {
    measure_list += ", " + std::string(measure);
    updates += ", " + std::string(measure) + " = u." + std::string(measure) + " + excluded." + std::string(measure);
  }
  sql += "INSERT INTO " + table + " AS u (" + period + key_list + ", requests, failed" + measure_list + ") VALUES ";
  bool first = true;
  for (const auto& [key, sums] : rows) {
    if (!first) sql += ", ";
    first = false;
    sql += "(" + transaction.quote(std::string(std::get<0>(key))) + "::" + period_type;
    std::apply([&](const auto&, const auto&... values) { ((sql += ", " + transaction.quote(std::string(values))), ...); },
               key);
    sql += ", " + std::to_string(sums.requests) + ", " + std::to_string(sums.failed);
    for (const int64_t measure : sums.measures) sql += ", " + std::to_string(measure);
    sql += ")";
  }
  sql += " ON CONFLICT (" + period + key_list + ") DO UPDATE SET " + updates + ";\n";
}

std::string hourOf(std::chrono::system_clock::time_point time) {
  const auto hour = std::chrono::floor<std::chrono::hours>(time);
  const auto day = std::chrono::floor<std::chrono::days>(hour);
  char text[40];
  std::snprintf(text, sizeof text, "%sT%02d:00:00Z", formatDay(day).c_str(), static_cast<int>((hour - day).count()));
  return text;
}

std::string rollupStatements(pqxx::transaction_base& transaction, const std::vector<RollupFacts>& facts) {
  // Keys view the facts' strings (and the period texts kept below): a batch of thousands of rows
  // falls into a handful of keys, so nothing is copied per row.
  using UsageKey = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view, std::string_view>;
  using RouteKey = std::tuple<std::string_view, std::string_view, std::string_view>;
  std::map<UsageKey, Sums> hourly, daily;
  std::map<RouteKey, Sums> route_hourly, route_daily;
  std::deque<std::string> periods;  // push_back keeps references to earlier elements valid
  std::optional<std::chrono::system_clock::time_point> period_of;
  std::string_view hour, day;
  for (const auto& row : facts) {
    if (row.probe) continue;
    const auto row_hour = std::chrono::floor<std::chrono::hours>(row.created_at);
    if (period_of != row_hour) {
      period_of = row_hour;
      hour = periods.emplace_back(hourOf(row.created_at));
      day = periods.emplace_back(formatDay(std::chrono::floor<std::chrono::days>(row.created_at)));
    }
    hourly[{hour, row.user_name, row.project, row.model, row.provider}].add(row);
    daily[{day, row.user_name, row.project, row.model, row.provider}].add(row);
    route_hourly[{hour, row.route_id, row.endpoint}].add(row);
    route_daily[{day, row.route_id, row.endpoint}].add(row);
  }
  const std::vector<std::string> usage_keys = {"user_name", "project", "model", "provider"};
  const std::vector<std::string> route_keys = {"route_id", "endpoint"};
  std::string sql;
  appendUpsert(sql, transaction, "ai_usage_hourly", "hour", "timestamptz", usage_keys, hourly);
  appendUpsert(sql, transaction, "ai_usage_daily", "day", "date", usage_keys, daily);
  appendUpsert(sql, transaction, "ai_route_usage_hourly", "hour", "timestamptz", route_keys, route_hourly);
  appendUpsert(sql, transaction, "ai_route_usage_daily", "day", "date", route_keys, route_daily);
  return sql;
}

std::vector<std::string> columnNames(std::span<const AuditColumn> columns) {
  std::vector<std::string> names;
  for (const auto& column : columns) names.emplace_back(column.name);
  return names;
}

void ensurePartitionsFor(pqxx::connection& connection, const std::vector<RollupFacts>& facts) {
  std::set<std::chrono::sys_days> days;
  for (const auto& row : facts) days.insert(std::chrono::floor<std::chrono::days>(row.created_at));
  for (const auto day : days) {
    pqxx::work transaction(connection);
    transaction.exec_params("SELECT sluice_ensure_ai_requests_partition($1::date)", formatDay(day));
    transaction.commit();
  }
}

}  // namespace

void copyAuditRows(pqxx::connection& connection, std::span<const AuditColumn> columns, const std::string& copy_text,
                   const std::vector<RollupFacts>& facts) {
  const std::vector<std::string> names = columnNames(columns);
  for (int attempt = 0;; ++attempt) {
    try {
      pqxx::work transaction(connection);
      {
        // NOTE: tablewriter is libpqxx 6's one public way to send COPY data that is already
        // text (stream_to's raw line is private there); deprecated only in favour of stream_to.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        pqxx::tablewriter copy(transaction, "ai_requests", names.begin(), names.end());
#pragma GCC diagnostic pop
        copy.write_raw_line(copy_text);  // one PQputCopyData for the whole batch
        copy.complete();
      }
      const std::string rollups = rollupStatements(transaction, facts);
      if (!rollups.empty()) transaction.exec(rollups);
      transaction.commit();
      return;
    } catch (const pqxx::broken_connection&) {
      throw;
    } catch (const pqxx::sql_error& error) {
      if (attempt > 0 || !isMissingPartition(error)) throw;
    }
    ensurePartitionsFor(connection, facts);
  }
}

size_t insertAuditRows(pqxx::connection& connection, std::span<const AuditColumn> columns,
                       const std::string& json_array) {
  const std::string statement = insertStatement(columns);
  for (int attempt = 0;; ++attempt) {
    try {
      pqxx::work transaction(connection);
      const size_t inserted = transaction.exec_params1(statement, json_array)[0].as<size_t>();
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

namespace {

// Writes `value` as exactly `width` decimal digits (zero-padded) at `out`.
char* digits(char* out, long long value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  return out + width;
}

// "YYYY-MM-DD" at `out` (10 bytes); years outside 0..9999 are clamped (never reached by a clock).
char* writeDay(char* out, std::chrono::sys_days day) {
  const std::chrono::year_month_day date{day};
  out = digits(out, std::clamp(static_cast<int>(date.year()), 0, 9999), 4);
  *out++ = '-';
  out = digits(out, static_cast<unsigned>(date.month()), 2);
  *out++ = '-';
  return digits(out, static_cast<unsigned>(date.day()), 2);
}

}  // namespace

// Both run for every audit row (several times): no printf.
std::string formatDay(std::chrono::sys_days day) {
  char text[10];
  writeDay(text, day);
  return std::string(text, sizeof text);
}

std::string formatTimestamp(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  const auto micros = time_point_cast<microseconds>(time);
  const auto day = floor<days>(micros);
  const hh_mm_ss<microseconds> clock{micros - day};
  char text[27];
  char* out = writeDay(text, day);
  *out++ = 'T';
  out = digits(out, clock.hours().count(), 2);
  *out++ = ':';
  out = digits(out, clock.minutes().count(), 2);
  *out++ = ':';
  out = digits(out, clock.seconds().count(), 2);
  *out++ = '.';
  out = digits(out, clock.subseconds().count(), 6);
  *out++ = 'Z';
  return std::string(text, static_cast<size_t>(out - text));
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
