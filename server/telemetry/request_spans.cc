#include "server/telemetry/request_spans.h"

#include <algorithm>
#include <type_traits>

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
std::string_view hostOf(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);  // never userinfo
  if (!rest.empty() && rest.front() == '[') return rest.substr(0, rest.find(']') + 1);
  return rest.substr(0, rest.find(':'));
}

void text(SpanSink& sink, std::string_view key, std::string_view value) {
  if (!value.empty()) sink.attribute(key, AttributeView(value));
}
void number(SpanSink& sink, std::string_view key, int64_t value) { sink.attribute(key, AttributeView(value)); }

void usage(SpanSink& sink, const wire::Usage& used) {
  number(sink, "gen_ai.usage.input_tokens", used.input_tokens);
  number(sink, "gen_ai.usage.output_tokens", used.output_tokens);
  if (used.cache_read_tokens > 0) number(sink, "gen_ai.usage.cache_read.input_tokens", used.cache_read_tokens);
  if (used.cache_write_tokens > 0) number(sink, "gen_ai.usage.cache_creation.input_tokens", used.cache_write_tokens);
}

bool skipped(const audit::AttemptRecord& attempt) {
  return attempt.result.starts_with("skipped:") || attempt.span_id.empty();
}

// Builds Span values.
class SpanValues final : public SpanSink {
 public:
  std::vector<Span> spans;

  void beginSpan(const SpanHead& head) override {
    Span& span = spans.emplace_back();
    span.trace_id = std::string(head.trace_id);
    span.span_id = std::string(head.span_id);
    span.parent_span_id = std::string(head.parent_span_id);
    span.trace_state = std::string(head.trace_state);
    span.name = std::string(head.name);
    span.kind = head.kind;
    span.start_unix_nano = head.start_unix_nano;
    span.end_unix_nano = head.end_unix_nano;
    span.sampled = head.sampled;
  }
  void attribute(std::string_view key, const AttributeView& value) override {
    auto& into = in_event_ ? spans.back().events.back().attributes : spans.back().attributes;
    into.push_back({std::string(key), ownedValue(value)});
  }
  void beginEvent(std::string_view name, uint64_t time_unix_nano) override {
    spans.back().events.push_back({std::string(name), time_unix_nano, {}});
    in_event_ = true;
  }
  void endEvent() override { in_event_ = false; }
  void endSpan(StatusCode status, std::string_view message) override {
    spans.back().status = status;
    spans.back().status_message = std::string(message);
  }

 private:
  bool in_event_ = false;
};

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

void walkRequestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                      const catalog::Catalog* catalog, audit::TimePoint now, SpanSink& sink) {
  const std::string operation = operationName(facts.path);
  const std::string_view path = pathOnly(facts.path);
  const audit::TimePoint started = row.created_at == audit::TimePoint{} ? now : row.created_at;
  const audit::TimePoint ended = row.completed_at == audit::TimePoint{} ? now : row.completed_at;

  std::string name;
  name.reserve(facts.method.size() + 1 + path.size());
  name.append(facts.method).append(" ").append(path);
  SpanHead server;
  server.trace_id = trace.trace_id;
  server.span_id = trace.server_span_id;
  server.sampled = trace.sampled;
  if (trace.parent) {
    server.parent_span_id = trace.parent->span_id;
    server.trace_state = trace.parent->trace_state;
  }
  server.name = name;
  server.kind = SpanKind::Server;
  server.start_unix_nano = nanos(started);
  server.end_unix_nano = std::max(nanos(ended), server.start_unix_nano);
  sink.beginSpan(server);
  text(sink, "http.request.method", facts.method);
  text(sink, "url.path", path);
  number(sink, "http.response.status_code", row.status);
  text(sink, "client.address", row.client_address);
  text(sink, "enduser.id", row.user);
  text(sink, "sluice.project", row.project);
  text(sink, "sluice.request_id", row.id);
  text(sink, "sluice.route", row.route_id);
  text(sink, "sluice.route_match", row.route_match);
  text(sink, "sluice.outcome", row.outcome);
  text(sink, "sluice.client_wire", row.client_wire);
  text(sink, "gen_ai.operation.name", operation);
  text(sink, "gen_ai.request.model", row.requested_model);
  text(sink, "sluice.model", row.model);
  text(sink, "sluice.served", row.served_endpoint);
  if (!row.error_key.empty() && row.outcome != audit::outcome::kOk) text(sink, "error.type", row.error_key);
  if (row.cost_microdollars > 0) number(sink, "sluice.cost_microdollars", row.cost_microdollars);
  if (!row.served_provider.empty()) usage(sink, row.usage);
  if (row.is_streaming) sink.attribute("sluice.stream", AttributeView(true));
  if (row.ttfb_ms) {
    sink.beginEvent(row.is_streaming ? "gen_ai.first_token" : "first_byte",
                    server.start_unix_nano + static_cast<uint64_t>(*row.ttfb_ms) * 1'000'000);
    sink.endEvent();
  }
  if (!row.masked.empty()) {
    sink.beginEvent("sluice.data_protection.masked", server.start_unix_nano);
    std::string key;
    for (const auto& [kind, count] : row.masked) {
      key.assign("sluice.masked.").append(kind);
      number(sink, key, count);
    }
    sink.endEvent();
  }
  const auto startOf = [&](const audit::AttemptRecord& attempt) {
    return attempt.started_at == audit::TimePoint{} ? server.start_unix_nano : nanos(attempt.started_at);
  };
  for (const audit::AttemptRecord& attempt : row.attempts) {
    if (!skipped(attempt)) continue;
    // Never sent: an event, not a span (nothing was waited on).
    sink.beginEvent("sluice.attempt.skipped", startOf(attempt));
    text(sink, "sluice.endpoint", attempt.endpoint);
    text(sink, "sluice.attempt.result", attempt.result);
    sink.endEvent();
  }
  const bool failed = row.status >= 500;
  sink.endSpan(failed ? StatusCode::Error : StatusCode::Unset, failed ? std::string_view(row.error_key) : "");

  std::string client_name = operation;
  if (!row.model.empty()) client_name.append(" ").append(row.model);
  for (size_t i = 0; i < row.attempts.size(); ++i) {
    const audit::AttemptRecord& attempt = row.attempts[i];
    if (skipped(attempt)) continue;
    SpanHead client;
    client.trace_id = trace.trace_id;
    client.span_id = attempt.span_id;
    client.parent_span_id = trace.server_span_id;
    client.sampled = trace.sampled;
    client.kind = SpanKind::Client;
    client.start_unix_nano = startOf(attempt);
    client.end_unix_nano =
        client.start_unix_nano + static_cast<uint64_t>(std::max<int64_t>(attempt.duration_ms, 0)) * 1'000'000;
    client.name = client_name;
    sink.beginSpan(client);
    text(sink, "gen_ai.operation.name", operation);
    const catalog::Endpoint* endpoint = catalog != nullptr ? catalog->endpoint(attempt.endpoint) : nullptr;
    const catalog::Provider* provider = catalog != nullptr ? catalog->provider(attempt.provider) : nullptr;
    if (endpoint != nullptr && provider != nullptr) {
      text(sink, "gen_ai.provider.name", providerName(*provider, *endpoint));
      text(sink, "server.address", hostOf(endpoint->url));
    }
    text(sink, "gen_ai.request.model", row.model);
    text(sink, "sluice.endpoint", attempt.endpoint);
    number(sink, "sluice.attempt", static_cast<int64_t>(i + 1));
    text(sink, "sluice.attempt.result", attempt.result);
    if (attempt.status > 0) number(sink, "http.response.status_code", attempt.status);
    const bool served = attempt.result == "ok" && attempt.endpoint == row.served_endpoint;
    StatusCode status = StatusCode::Unset;
    std::string_view message;
    if (served) {
      text(sink, "gen_ai.response.model", row.model);
      usage(sink, row.usage);
    } else if (attempt.result != "ok") {
      status = StatusCode::Error;
      const std::string_view result = attempt.result;
      const size_t colon = result.find(':');
      text(sink, "error.type", result.starts_with("status_")     ? result.substr(7)
                               : colon != std::string_view::npos ? result.substr(colon + 1)
                                                                 : result);
      message = std::string_view(attempt.error).substr(0, 200);
    }
    sink.endSpan(status, message);
  }
}

std::vector<Span> requestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                               const catalog::Catalog* catalog, audit::TimePoint now) {
  SpanValues values;
  walkRequestSpans(row, facts, trace, catalog, now, values);
  return std::move(values.spans);
}

decltype(Attribute::value) ownedValue(const AttributeView& value) {
  return std::visit(
      [](const auto& v) -> decltype(Attribute::value) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string_view>) return std::string(v);
        else if constexpr (std::is_same_v<T, const std::vector<std::string>*>) return *v;
        else return v;
      },
      value);
}

AttributeView viewOf(const Attribute& attribute) {
  return std::visit(
      [](const auto& v) -> AttributeView {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) return std::string_view(v);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) return &v;
        else return v;
      },
      attribute.value);
}

void walkSpans(const std::vector<Span>& spans, SpanSink& sink) {
  const auto attributes = [&](const std::vector<Attribute>& list) {
    for (const auto& attribute : list) sink.attribute(attribute.key, viewOf(attribute));
  };
  for (const Span& span : spans) {
    sink.beginSpan({span.trace_id, span.span_id, span.parent_span_id, span.trace_state, span.name, span.kind,
                    span.start_unix_nano, span.end_unix_nano, span.sampled});
    attributes(span.attributes);
    for (const auto& event : span.events) {
      sink.beginEvent(event.name, event.time_unix_nano);
      attributes(event.attributes);
      sink.endEvent();
    }
    sink.endSpan(span.status, span.status_message);
  }
}

}  // namespace sluice::telemetry
