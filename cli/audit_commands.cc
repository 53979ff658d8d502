#include "cli/audit_commands.h"

#include "catalog/catalog.h"

#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/duration.h"
#include "cli/table.h"
#include "server/store/audit_queries.h"
#include "server/store/audit_store.h"

namespace sluice::cli {

namespace {

std::string str(const nlohmann::json& row, const char* key) {
  const auto found = row.find(key);
  if (found == row.end() || found->is_null()) return "";
  return found->is_string() ? found->get<std::string>() : found->dump();
}

long long num(const nlohmann::json& row, const char* key) {
  const auto found = row.find(key);
  return found == row.end() || !found->is_number() ? 0 : found->get<long long>();
}

std::optional<long long> optNum(const nlohmann::json& row, const char* key) {
  const auto found = row.find(key);
  if (found == row.end() || !found->is_number()) return std::nullopt;
  return found->get<long long>();
}

std::string orDash(const std::string& value) { return value.empty() ? "-" : value; }

std::string ms(std::optional<long long> value) { return value ? groupThousands(*value) + " ms" : "-"; }

// "2025-05-01T12:00:00.123456+00:00" → "2025-05-01 12:00:00.123 UTC".
std::string readableTime(const std::string& value) {
  if (value.size() < 19) return orDash(value);
  std::string text = value.substr(0, 10) + " " + value.substr(11, 8);
  if (value.size() >= 23 && value[19] == '.') text += value.substr(19, 4);
  return text + " UTC";
}

std::string shortTime(TimePoint time) {
  const std::string text = store::formatTimestamp(time);  // 2025-05-01T12:00:00.123456Z
  return text.substr(0, 10) + " " + text.substr(11, 8);
}

// The derived figures an auditor asks for, added to the row for --json as well.
void addDerived(nlohmann::json& row) {
  row["cost_usd"] = formatDollars(num(row, "cost_microdollars")).substr(1);
  row["cache_savings_usd"] = formatDollars(num(row, "cache_savings_microdollars")).substr(1);
  const auto latency = optNum(row, "latency_ms");
  const auto upstream = optNum(row, "upstream_ms");
  row["gateway_overhead_ms"] = latency && upstream ? nlohmann::json(*latency - *upstream) : nlohmann::json();
}

void printRequest(const nlohmann::json& row, std::ostream& out) {
  const auto field = [&](const std::string& label, const std::string& value) {
    out << label << std::string(label.size() < 20 ? 20 - label.size() : 1, ' ') << value << "\n";
  };
  field("request", str(row, "id"));
  field("created", readableTime(str(row, "created_at")));
  field("completed", readableTime(str(row, "completed_at")));
  std::string who = orDash(str(row, "user_name"));
  if (!str(row, "api_key_id").empty()) who += " (key " + str(row, "api_key_id") + ")";
  field("user", who);
  std::string project = orDash(str(row, "project"));
  if (!str(row, "project_source").empty()) project += " (from " + str(row, "project_source") + ")";
  field("project", project);
  field("client", orDash(str(row, "client_family")) + ", " + orDash(str(row, "client_wire")) + " wire" +
                      (row.value("is_streaming", false) ? ", streaming" : ""));
  field("client address", orDash(str(row, "client_address")));
  std::string trace = orDash(str(row, "trace_id"));
  if (!str(row, "trace_url").empty()) trace += "  " + str(row, "trace_url");
  field("trace", trace);
  field("requested model", orDash(str(row, "requested_model")));
  field("model", orDash(str(row, "model")));
  field("route", orDash(str(row, "route_id")) + (str(row, "strategy").empty() ? "" : " (" + str(row, "strategy") + ")"));
  field("provider", orDash(str(row, "provider")) +
                        (str(row, "endpoint").empty() ? "" : " (primary endpoint " + str(row, "endpoint") + ")"));
  field("served by", str(row, "served_provider").empty()
                         ? "-"
                         : str(row, "served_provider") + " (endpoint " + orDash(str(row, "served_endpoint")) + ")");
  field("route_match", orDash(str(row, "route_match")));
  const nlohmann::json attempts = row.value("attempts", nlohmann::json::array());
  if (attempts.empty()) {
    field("attempts", "none");
  } else {
    out << "attempts\n";
    Table table({"  #", "ENDPOINT", "PROVIDER", "STATUS", "RESULT", "DURATION", "ERROR"},
                {true, false, false, true, false, true, false});
    int index = 0;
    for (const auto& attempt : attempts) {
      const long long status = num(attempt, "status");
      table.addRow({std::to_string(++index), orDash(str(attempt, "endpoint")), orDash(str(attempt, "provider")),
                    status ? std::to_string(status) : "-", orDash(str(attempt, "result")),
                    ms(optNum(attempt, "duration_ms")), str(attempt, "error")});
    }
    table.print(out);
  }
  field("tokens", "input " + groupThousands(num(row, "input_tokens")) + ", output " +
                      groupThousands(num(row, "output_tokens")) + ", cache read " +
                      groupThousands(num(row, "cache_read_tokens")) + ", cache write " +
                      groupThousands(num(row, "cache_write_tokens")) + ", reasoning " +
                      groupThousands(num(row, "reasoning_tokens")));
  if (!str(row, "unit").empty()) field("units", groupThousands(num(row, "units")) + " " + str(row, "unit"));
  field("cost", formatDollars(num(row, "cost_microdollars")) + " (" + groupThousands(num(row, "cost_microdollars")) +
                    " microdollars)");
  field("cache savings", formatDollars(num(row, "cache_savings_microdollars")) + " (" +
                             groupThousands(num(row, "cache_savings_microdollars")) + " microdollars)");
  // Data protection: counts per kind of what was masked before a provider saw it, never values.
  const auto masked = row.find("masked");
  if (masked != row.end() && masked->is_object() && !masked->empty()) {
    std::string counts;
    for (const auto& [kind, count] : masked->items()) {
      counts += (counts.empty() ? "" : ", ") + kind + " " + (count.is_number() ? std::to_string(count.get<long long>()) : "?");
    }
    field("masked", counts);
  }
  field("latency", ms(optNum(row, "latency_ms")));
  field("time to first byte", ms(optNum(row, "ttfb_ms")));
  field("upstream", ms(optNum(row, "upstream_ms")));
  field("gateway overhead", ms(optNum(row, "gateway_overhead_ms")));
  field("outcome", str(row, "outcome") + " (HTTP " + std::to_string(num(row, "status")) + ")" +
                       (row.value("aborted", false) ? ", aborted by the client" : "") +
                       (row.value("probe", false) ? ", console probe" : ""));
  std::string error = str(row, "error_key");
  if (!str(row, "error_message").empty()) error += (error.empty() ? "" : ": ") + str(row, "error_message");
  field("error", orDash(error));
  if (!str(row, "request_body").empty()) field("request body", str(row, "request_body"));
  if (!str(row, "response_body").empty()) field("response body", str(row, "response_body"));
}

std::expected<TimePoint, int> windowStart(const std::string& since, TimePoint now, std::ostream& err) {
  const auto duration = parseDuration(since);
  if (!duration) {
    err << "sluicectl: --since: " << duration.error() << "\n";
    return std::unexpected(2);
  }
  return now - *duration;
}

}  // namespace

int auditShow(const std::string& database_url, const std::string& id_or_prefix, const std::string& trace_url,
              bool json, std::ostream& out, std::ostream& err) {
  if (id_or_prefix.size() < 4) {
    err << "sluicectl: give at least 4 characters of the request id\n";
    return 2;
  }
  return withDatabase(database_url, err, [&](pqxx::connection& connection) {
    auto rows = store::findRequestsByIdPrefix(connection, id_or_prefix, 11);
    if (rows.empty()) {
      err << "sluicectl: no request with an id starting with " << id_or_prefix << "\n";
      return 1;
    }
    if (rows.size() > 1) {
      err << "sluicectl: " << id_or_prefix << " matches " << (rows.size() > 10 ? "more than 10" : std::to_string(rows.size()))
          << " requests; give more of the id:\n";
      for (size_t i = 0; i < rows.size() && i < 10; ++i) {
        err << "  " << str(rows[i], "id") << "  " << readableTime(str(rows[i], "created_at")) << "\n";
      }
      return 2;
    }
    nlohmann::json& row = rows.front();
    addDerived(row);
    if (row.contains("trace_id") && row["trace_id"].is_string()) {
      catalog::TelemetrySettings telemetry;
      telemetry.trace_url = trace_url;
      const std::string link = catalog::traceLink(telemetry, row["trace_id"].get<std::string>());
      if (!link.empty()) row["trace_url"] = link;
    }
    if (json) {
      out << row.dump(2) << "\n";
    } else {
      printRequest(row, out);
    }
    return 0;
  });
}

int requestsList(const std::string& database_url, const RequestsListOptions& options, OutputFormat format,
                 TimePoint now, std::ostream& out, std::ostream& err) {
  const auto since = windowStart(options.since, now, err);
  if (!since) return since.error();
  if (options.limit <= 0) {
    err << "sluicectl: --limit must be positive\n";
    return 2;
  }
  return withDatabase(database_url, err, [&](pqxx::connection& connection) {
    store::RequestFilter filter{*since,          options.user,  options.project, options.model,
                                options.outcome, options.limit, options.endpoint};
    const auto rows = store::listRequests(connection, filter);
    if (format == OutputFormat::Json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& row : rows) {
        list.push_back({{"id", row.id},
                        {"created_at", store::formatTimestamp(row.created_at)},
                        {"user", row.user},
                        {"project", row.project},
                        {"requested_model", row.requested_model},
                        {"model", row.model},
                        {"served_provider", row.served_provider},
                        {"is_streaming", row.is_streaming},
                        {"status", row.status},
                        {"outcome", row.outcome},
                        {"input_tokens", row.input_tokens},
                        {"output_tokens", row.output_tokens},
                        {"cost_microdollars", row.cost_microdollars},
                        {"latency_ms", row.latency_ms ? nlohmann::json(*row.latency_ms) : nlohmann::json()}});
      }
      out << list.dump(2) << "\n";
      return 0;
    }
    if (format == OutputFormat::Csv) {
      Table table({"id", "created_at", "user", "project", "requested_model", "model", "served_provider", "streaming",
                   "status", "outcome", "input_tokens", "output_tokens", "cost_microdollars", "latency_ms"});
      for (const auto& row : rows) {
        table.addRow({row.id, store::formatTimestamp(row.created_at), row.user, row.project, row.requested_model,
                      row.model, row.served_provider, row.is_streaming ? "true" : "false", std::to_string(row.status),
                      row.outcome, std::to_string(row.input_tokens), std::to_string(row.output_tokens),
                      std::to_string(row.cost_microdollars), row.latency_ms ? std::to_string(*row.latency_ms) : ""});
      }
      table.printCsv(out);
      return 0;
    }
    Table table({"TIME (UTC)", "ID", "USER", "PROJECT", "MODEL", "SERVED BY", "STATUS", "OUTCOME", "IN", "OUT", "COST",
                 "LATENCY"},
                {false, false, false, false, false, false, true, false, true, true, true, true});
    for (const auto& row : rows) {
      table.addRow({shortTime(row.created_at), row.id, orDash(row.user), orDash(row.project),
                    orDash(row.model.empty() ? row.requested_model : row.model), orDash(row.served_provider),
                    std::to_string(row.status), row.outcome, groupThousands(row.input_tokens),
                    groupThousands(row.output_tokens), formatDollars(row.cost_microdollars),
                    row.latency_ms ? groupThousands(*row.latency_ms) + " ms" : "-"});
    }
    table.print(out);
    out << rows.size() << " request" << (rows.size() == 1 ? "" : "s") << " since " << shortTime(*since) << " UTC"
        << (static_cast<int>(rows.size()) == options.limit ? " (limit reached; use --limit)" : "") << "\n";
    return 0;
  });
}

}  // namespace sluice::cli
