// The Requests page: the audit trail, filtered and paginated, one request in full, and live.
#include <algorithm>
#include <chrono>
#include <deque>
#include <set>
#include <thread>

#include <pqxx/pqxx>

#include "server/admin/api.h"
#include "server/net/fiber.h"
#include "server/store/audit_queries.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr const char* kSummaryColumns =
    "id, created_at, (extract(epoch FROM created_at) * 1000000)::bigint AS cursor, user_name, api_key_id, project, "
    "client_family, client_wire, requested_model, model, route_id, provider, endpoint, served_provider, "
    "served_endpoint, is_streaming, status, outcome, error_key, input_tokens, output_tokens, cost_microdollars, "
    "latency_ms, ttfb_ms, probe, jsonb_array_length(attempts) AS attempt_count, replica";

}  // namespace

Reply requestList(ConsoleContext& context, const Exchange& exchange) {
  if (!context.pool) return Reply::error(503, "no_database", "this gateway has no database");
  const auto since = parseDurationSeconds(exchange.param("since", "24h"));
  if (!since) return Reply::error(400, "bad_since", "since: a duration such as 15m, 24h, 7d");
  int limit = 50;
  try {
    limit = std::clamp(std::stoi(exchange.param("limit", "50")), 1, 500);
  } catch (const std::exception&) {
    return Reply::error(400, "bad_limit", "limit: a number from 1 to 500");
  }
  std::optional<long long> before;
  if (auto text = exchange.optionalParam("before")) {
    try {
      before = std::stoll(*text);
    } catch (const std::exception&) {
      return Reply::error(400, "bad_before", "before: the cursor of the last row shown");
    }
  }
  return context.pool->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    // Only the filters given appear, so each shape meets its (column, created_at) index.
    std::string where = "created_at >= now() - " + query.quote(std::to_string(*since) + " seconds") + "::interval";
    // Exact to the microsecond (a double's seconds would not be): epoch + N µs.
    if (before) where += " AND created_at < timestamptz 'epoch' + " + std::to_string(*before) + " * interval '1 microsecond'";
    const auto add = [&](const char* column, const char* name) {
      if (auto value = exchange.optionalParam(name)) where += std::string(" AND ") + column + " = " + query.quote(*value);
    };
    add("user_name", "user");
    add("project", "project");
    add("model", "model");
    add("outcome", "outcome");
    if (exchange.param("probes") != "1") where += " AND NOT probe";
    json rows = json::array();
    for (const auto& row : query.exec("SELECT row_to_json(r)::text FROM (SELECT " + std::string(kSummaryColumns) +
                                      " FROM ai_requests WHERE " + where + " ORDER BY created_at DESC LIMIT " +
                                      std::to_string(limit + 1) + ") r")) {
      rows.push_back(json::parse(row[0].as<std::string>()));
    }
    json out = {{"limit", limit}};
    if (static_cast<int>(rows.size()) > limit) {
      rows.erase(rows.end() - 1);
      out["next_before"] = rows.back()["cursor"];
    } else {
      out["next_before"] = nullptr;
    }
    out["requests"] = rows;
    return Reply::json(out);
  });
}

Reply requestDetail(ConsoleContext& context, const std::string& id) {
  if (!context.pool) return Reply::error(503, "no_database", "this gateway has no database");
  if (id.size() < 8 || id.size() > 64) return Reply::error(400, "bad_id", "a request id (or 8+ of its first characters)");
  auto rows = context.pool->run(
      [&](pqxx::connection& connection) { return store::findRequestsByIdPrefix(connection, id, 2); });
  if (rows.empty()) return Reply::error(404, "no_such_request", "no request " + id + " in the audit trail");
  if (rows.size() > 1 && rows[0]["id"] != id) {
    return Reply::error(409, "ambiguous_id", "more than one request starts with " + id);
  }
  json row = rows[0]["id"] == id || rows.size() == 1 ? rows[0] : rows[1];
  if (row["latency_ms"].is_number() && row["upstream_ms"].is_number()) {
    row["overhead_ms"] = row["latency_ms"].get<int64_t>() - row["upstream_ms"].get<int64_t>();
  }
  return Reply::json(row);
}

void streamLiveRequests(ConsoleContext& context, std::ostream& out, const std::function<bool()>& signed_in) {
  using namespace std::chrono_literals;
  std::set<std::string> seen;
  std::deque<std::string> seen_order;
  const auto started = std::chrono::steady_clock::now();
  auto last_write = started;
  bool first = true;
  out << "retry: 2000\n\n" << std::flush;
  // NOTE: a poll, once a second, of the newest rows: simple, works across replicas, and costs one
  // index range scan on created_at. Reconnecting clients get the last 20 again.
  while (out && !context.gateway.stopping().load() && std::chrono::steady_clock::now() - started < 10min &&
         signed_in()) {
    std::vector<json> fresh;
    if (context.pool) {
      context.pool->run([&](pqxx::connection& connection) {
        pqxx::nontransaction query(connection);
        for (const auto& row : query.exec(
                 "SELECT row_to_json(r)::text FROM (SELECT " + std::string(kSummaryColumns) +
                 " FROM ai_requests WHERE created_at >= now() - interval '10 minutes' "
                 "ORDER BY created_at DESC LIMIT 20) r")) {
          fresh.push_back(json::parse(row[0].as<std::string>()));
        }
        return 0;
      });
    }
    for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {
      const std::string id = (*it)["id"].get<std::string>();
      if (!seen.insert(id).second) continue;
      seen_order.push_back(id);
      if (seen_order.size() > 500) {
        seen.erase(seen_order.front());
        seen_order.pop_front();
      }
      out << "event: request\ndata: " << it->dump(-1, ' ', false, json::error_handler_t::replace) << "\n\n";
      last_write = std::chrono::steady_clock::now();
    }
    if (first) {
      out << "event: ready\ndata: {}\n\n";
      first = false;
    } else if (std::chrono::steady_clock::now() - last_write > 15s) {
      out << ": keep-alive\n\n";
      last_write = std::chrono::steady_clock::now();
    }
    out.flush();
    if (!out) break;
    net::fiber::sleepFor(1s);  // on a fiber: parks it, leaving the worker to the others
  }
}

}  // namespace sluice::admin
