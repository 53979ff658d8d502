// The Requests page: the audit trail, filtered and paginated, one request in full, and live.
#include <algorithm>
#include <chrono>
#include <deque>
#include <set>
#include <thread>

#include "server/admin/api.h"
#include "server/net/fiber.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

}  // namespace

Reply requestList(ConsoleContext& context, const Exchange& exchange) {
  if (!context.requests) return Reply::error(503, "no_database", "this gateway has no database");
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
  store::RequestPageQuery query;
  query.since_seconds = *since;
  query.before = before;
  query.user = exchange.optionalParam("user");
  query.project = exchange.optionalParam("project");
  query.model = exchange.optionalParam("model");
  query.outcome = exchange.optionalParam("outcome");
  query.probes = exchange.param("probes") == "1";
  query.rows = limit + 1;
  json rows = json::array();
  for (auto& row : context.requests->page(query)) rows.push_back(std::move(row));
  json out = {{"limit", limit}};
  if (static_cast<int>(rows.size()) > limit) {
    rows.erase(rows.end() - 1);
    out["next_before"] = rows.back()["cursor"];
  } else {
    out["next_before"] = nullptr;
  }
  out["requests"] = rows;
  return Reply::json(out);
}

Reply requestDetail(ConsoleContext& context, const std::string& id, const std::optional<std::string>& owner) {
  if (!context.requests) return Reply::error(503, "no_database", "this gateway has no database");
  if (id.size() < 8 || id.size() > 64) return Reply::error(400, "bad_id", "a request id (or 8+ of its first characters)");
  auto rows = context.requests->byIdPrefix(id, 2);
  if (rows.empty()) return Reply::error(404, "no_such_request", "no request " + id + " in the audit trail");
  if (rows.size() > 1 && rows[0]["id"] != id) {
    return Reply::error(409, "ambiguous_id", "more than one request starts with " + id);
  }
  json row = rows[0]["id"] == id || rows.size() == 1 ? rows[0] : rows[1];
  // A member sees their own rows only; another's is answered as if it did not exist.
  if (owner && (!row["user_name"].is_string() || row["user_name"].get<std::string>() != *owner)) {
    return Reply::error(404, "no_such_request", "no request " + id + " in the audit trail");
  }
  if (row["latency_ms"].is_number() && row["upstream_ms"].is_number()) {
    row["overhead_ms"] = row["latency_ms"].get<int64_t>() - row["upstream_ms"].get<int64_t>();
  }
  if (row["trace_id"].is_string()) {
    const std::string link = catalog::traceLink(context.gateway.catalog()->telemetry, row["trace_id"].get<std::string>());
    if (!link.empty()) row["trace_url"] = link;
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
    if (context.requests) fresh = context.requests->latest();
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
