#include "server/audit/record_json.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "server/store/audit_store.h"

namespace sluice::audit {

namespace {

nlohmann::json textOrNull(const std::string& value) {
  if (value.empty()) return nullptr;
  if (value.find('\0') == std::string::npos) return value;
  std::string clean = value;
  clean.erase(std::remove(clean.begin(), clean.end(), '\0'), clean.end());
  return clean;
}

nlohmann::json timeOrNull(TimePoint time) {
  if (time == TimePoint{}) return nullptr;
  return store::formatTimestamp(time);
}

nlohmann::json numberOrNull(const std::optional<int64_t>& value) {
  if (!value) return nullptr;
  return *value;
}

}  // namespace

std::string toRowJson(const Record& record) {
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& attempt : record.attempts) {
    nlohmann::json item = {{"endpoint", textOrNull(attempt.endpoint)}, {"provider", textOrNull(attempt.provider)},
                           {"status", attempt.status},                 {"result", textOrNull(attempt.result)},
                           {"duration_ms", attempt.duration_ms}};
    if (!attempt.error.empty()) item["error"] = textOrNull(attempt.error);
    attempts.push_back(std::move(item));
  }
  nlohmann::json row = {
      {"id", textOrNull(record.id)},
      {"created_at", timeOrNull(record.created_at)},
      {"completed_at", timeOrNull(record.completed_at)},
      {"user_name", textOrNull(record.user)},
      {"api_key_id", textOrNull(record.api_key_id)},
      {"project", textOrNull(record.project)},
      {"project_source", textOrNull(record.project_source)},
      {"client_family", textOrNull(record.client_family)},
      {"client_wire", textOrNull(record.client_wire)},
      {"requested_model", textOrNull(record.requested_model)},
      {"model", textOrNull(record.model)},
      {"route_id", textOrNull(record.route_id)},
      {"strategy", textOrNull(record.strategy)},
      {"provider", textOrNull(record.provider)},
      {"endpoint", textOrNull(record.endpoint)},
      {"served_provider", textOrNull(record.served_provider)},
      {"served_endpoint", textOrNull(record.served_endpoint)},
      {"route_match", textOrNull(record.route_match)},
      {"attempts", std::move(attempts)},
      {"is_streaming", record.is_streaming},
      {"status", record.status},
      {"outcome", record.outcome.empty() ? std::string(outcome::kInternalError) : record.outcome},
      {"error_key", textOrNull(record.error_key)},
      {"error_message", textOrNull(record.error_message)},
      {"input_tokens", record.usage.input_tokens},
      {"output_tokens", record.usage.output_tokens},
      {"cache_read_tokens", record.usage.cache_read_tokens},
      {"cache_write_tokens", record.usage.cache_write_tokens},
      {"reasoning_tokens", record.usage.reasoning_tokens},
      {"cost_microdollars", record.cost_microdollars},
      {"latency_ms", numberOrNull(record.latency_ms)},
      {"ttfb_ms", numberOrNull(record.ttfb_ms)},
      {"upstream_ms", numberOrNull(record.upstream_ms)},
      {"aborted", record.aborted},
      {"probe", record.probe},
      {"request_body", record.request_body ? textOrNull(*record.request_body) : nlohmann::json()},
      {"response_body", record.response_body ? textOrNull(*record.response_body) : nlohmann::json()},
  };
  return row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sluice::audit
