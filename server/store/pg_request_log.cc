#include "server/store/pg_request_log.h"

#include "server/store/audit_queries.h"

namespace sluice::store {

namespace {

constexpr const char* kSummaryColumns =
    "id, created_at, (extract(epoch FROM created_at) * 1000000)::bigint AS cursor, user_name, api_key_id, project, "
    "client_family, client_wire, requested_model, model, route_id, provider, endpoint, served_provider, "
    "served_endpoint, is_streaming, status, outcome, error_key, input_tokens, output_tokens, cost_microdollars, "
    "latency_ms, ttfb_ms, probe, jsonb_array_length(attempts) AS attempt_count, replica";

std::vector<nlohmann::json> summaries(pqxx::nontransaction& query, const std::string& where_and_order) {
  std::vector<nlohmann::json> rows;
  for (const auto& row : query.exec("SELECT row_to_json(r)::text FROM (SELECT " + std::string(kSummaryColumns) +
                                    " FROM ai_requests WHERE " + where_and_order + ") r")) {
    rows.push_back(nlohmann::json::parse(row[0].as<std::string>()));
  }
  return rows;
}

}  // namespace

PgRequestLog::PgRequestLog(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::vector<nlohmann::json> PgRequestLog::page(const RequestPageQuery& filter) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    // Only the filters given appear, so each shape meets its (column, created_at) index.
    std::string where =
        "created_at >= now() - " + query.quote(std::to_string(filter.since_seconds) + " seconds") + "::interval";
    // Exact to the microsecond (a double's seconds would not be): epoch + N µs.
    if (filter.before) {
      where += " AND created_at < timestamptz 'epoch' + " + std::to_string(*filter.before) + " * interval '1 microsecond'";
    }
    const auto add = [&](const char* column, const std::optional<std::string>& value) {
      if (value) where += std::string(" AND ") + column + " = " + query.quote(*value);
    };
    add("user_name", filter.user);
    add("project", filter.project);
    add("model", filter.model);
    add("outcome", filter.outcome);
    if (!filter.probes) where += " AND NOT probe";
    return summaries(query, where + " ORDER BY created_at DESC LIMIT " + std::to_string(filter.rows));
  });
}

std::vector<nlohmann::json> PgRequestLog::latest() {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    return summaries(query, "created_at >= now() - interval '10 minutes' ORDER BY created_at DESC LIMIT 20");
  });
}

std::vector<nlohmann::json> PgRequestLog::byIdPrefix(const std::string& prefix, int limit) {
  return pool_->run([&](pqxx::connection& connection) { return findRequestsByIdPrefix(connection, prefix, limit); });
}

}  // namespace sluice::store
