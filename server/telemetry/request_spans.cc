#include "server/telemetry/request_spans.h"

#include <algorithm>

namespace sluice::telemetry {

namespace {

uint64_t nanos(audit::TimePoint at) {
  const auto count = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  return count > 0 ? static_cast<uint64_t>(count) : 0;
}

std::string_view pathOnly(std::string_view target) {
  const size_t query = target.find('?');
  return query == std::string_view::npos ? target : target.substr(0, query);
}

// The host (and port) of an http(s) URL: server.address.
std::string hostOf(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);  // never userinfo
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(0, rest.find(']') + 1));
  return std::string(rest.substr(0, rest.find(':')));
}

void add(std::vector<Attribute>& into, std::string key, std::string value) {
  if (!value.empty()) into.push_back({std::move(key), std::move(value)});
}
void add(std::vector<Attribute>& into, std::string key, int64_t value) { into.push_back({std::move(key), value}); }

void usage(std::vector<Attribute>& into, const wire::Usage& used) {
  add(into, "gen_ai.usage.input_tokens", used.input_tokens);
  add(into, "gen_ai.usage.output_tokens", used.output_tokens);
  if (used.cache_read_tokens > 0) add(into, "gen_ai.usage.cache_read.input_tokens", used.cache_read_tokens);
  if (used.cache_write_tokens > 0) add(into, "gen_ai.usage.cache_creation.input_tokens", used.cache_write_tokens);
}

}  // namespace

std::string operationName(std::string_view path) {
  path = pathOnly(path);
  if (path.ends_with("/chat/completions") || path.ends_with("/messages") || path.ends_with("/responses")) return "chat";
  if (path.ends_with("/embeddings")) return "embeddings";
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string providerName(const catalog::Provider& provider, const catalog::Endpoint& endpoint) {
  if (provider.platform == catalog::Platform::Bedrock) return "aws.bedrock";
  switch (endpoint.wire) {
    case catalog::Wire::Anthropic: return "anthropic";
    case catalog::Wire::OpenAIChat:
    case catalog::Wire::OpenAIResponses: return "openai";
    case catalog::Wire::Gemini: return "gcp.gemini";
    case catalog::Wire::BedrockConverse: return "aws.bedrock";
    case catalog::Wire::Mcp: return "mcp";
  }
  return "unknown";
}

std::vector<Span> requestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                               const catalog::Catalog* catalog, audit::TimePoint now) {
  const std::string operation = operationName(facts.path);
  const std::string path(pathOnly(facts.path));
  const audit::TimePoint started = row.created_at == audit::TimePoint{} ? now : row.created_at;
  const audit::TimePoint ended = row.completed_at == audit::TimePoint{} ? now : row.completed_at;

  Span server;
  server.trace_id = trace.trace_id;
  server.span_id = trace.server_span_id;
  server.sampled = trace.sampled;
  if (trace.parent) {
    server.parent_span_id = trace.parent->span_id;
    server.trace_state = trace.parent->trace_state;
  }
  server.name = facts.method + " " + path;
  server.kind = SpanKind::Server;
  server.start_unix_nano = nanos(started);
  server.end_unix_nano = std::max(nanos(ended), server.start_unix_nano);
  auto& a = server.attributes;
  add(a, "http.request.method", facts.method);
  add(a, "url.path", path);
  add(a, "http.response.status_code", static_cast<int64_t>(row.status));
  add(a, "client.address", row.client_address);
  add(a, "enduser.id", row.user);
  add(a, "sluice.project", row.project);
  add(a, "sluice.request_id", row.id);
  add(a, "sluice.route", row.route_id);
  add(a, "sluice.route_match", row.route_match);
  add(a, "sluice.outcome", row.outcome);
  add(a, "sluice.client_wire", row.client_wire);
  add(a, "gen_ai.operation.name", operation);
  add(a, "gen_ai.request.model", row.requested_model);
  if (!row.model.empty()) add(a, "sluice.model", row.model);
  add(a, "sluice.served", row.served_endpoint);
  if (!row.error_key.empty() && row.outcome != audit::outcome::kOk) add(a, "error.type", row.error_key);
  if (row.cost_microdollars > 0) add(a, "sluice.cost_microdollars", row.cost_microdollars);
  if (!row.served_provider.empty()) usage(a, row.usage);
  if (row.is_streaming) a.push_back({"sluice.stream", true});
  if (row.status >= 500) {
    server.status = StatusCode::Error;
    server.status_message = row.error_key;
  }
  if (row.ttfb_ms) {
    server.events.push_back({row.is_streaming ? "gen_ai.first_token" : "first_byte",
                             server.start_unix_nano + static_cast<uint64_t>(*row.ttfb_ms) * 1'000'000, {}});
  }
  if (!row.masked.empty()) {
    SpanEvent masked{"sluice.data_protection.masked", server.start_unix_nano, {}};
    for (const auto& [kind, count] : row.masked) masked.attributes.push_back({"sluice.masked." + kind, count});
    server.events.push_back(std::move(masked));
  }

  std::vector<Span> spans;
  spans.reserve(1 + row.attempts.size());
  for (size_t i = 0; i < row.attempts.size(); ++i) {
    const audit::AttemptRecord& attempt = row.attempts[i];
    const uint64_t attempt_start = attempt.started_at == audit::TimePoint{} ? server.start_unix_nano
                                                                             : nanos(attempt.started_at);
    if (attempt.result.starts_with("skipped:") || attempt.span_id.empty()) {
      // Never sent: an event, not a span (nothing was waited on).
      server.events.push_back({"sluice.attempt.skipped", attempt_start,
                               {{"sluice.endpoint", attempt.endpoint}, {"sluice.attempt.result", attempt.result}}});
      continue;
    }
    Span client;
    client.trace_id = trace.trace_id;
    client.span_id = attempt.span_id;
    client.parent_span_id = trace.server_span_id;
    client.sampled = trace.sampled;
    client.kind = SpanKind::Client;
    client.start_unix_nano = attempt_start;
    client.end_unix_nano = attempt_start + static_cast<uint64_t>(std::max<int64_t>(attempt.duration_ms, 0)) * 1'000'000;
    client.name = operation + (row.model.empty() ? "" : " " + row.model);
    auto& c = client.attributes;
    add(c, "gen_ai.operation.name", operation);
    const catalog::Endpoint* endpoint = catalog != nullptr ? catalog->endpoint(attempt.endpoint) : nullptr;
    const catalog::Provider* provider = catalog != nullptr ? catalog->provider(attempt.provider) : nullptr;
    if (endpoint != nullptr && provider != nullptr) {
      add(c, "gen_ai.provider.name", providerName(*provider, *endpoint));
      add(c, "server.address", hostOf(endpoint->url));
    }
    add(c, "gen_ai.request.model", row.model);
    add(c, "sluice.endpoint", attempt.endpoint);
    add(c, "sluice.attempt", static_cast<int64_t>(i + 1));
    add(c, "sluice.attempt.result", attempt.result);
    if (attempt.status > 0) add(c, "http.response.status_code", static_cast<int64_t>(attempt.status));
    const bool served = attempt.result == "ok" && attempt.endpoint == row.served_endpoint;
    if (served) {
      add(c, "gen_ai.response.model", row.model);
      usage(c, row.usage);
    } else if (attempt.result != "ok") {
      client.status = StatusCode::Error;
      const size_t colon = attempt.result.find(':');
      add(c, "error.type", attempt.result.starts_with("status_") ? attempt.result.substr(7)
                            : colon != std::string::npos  ? attempt.result.substr(colon + 1)
                                                          : attempt.result);
      client.status_message = attempt.error.substr(0, 200);
    }
    spans.push_back(std::move(client));
  }
  spans.insert(spans.begin(), std::move(server));
  return spans;
}

}  // namespace sluice::telemetry
