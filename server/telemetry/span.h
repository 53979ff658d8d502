#pragma once
// A finished span and a log record as OTLP carries them (opentelemetry/proto/trace/v1/trace.proto,
// logs/v1/logs.proto), and the resource and scope that send them. Plain values.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sluice::telemetry {

struct Attribute {
  std::string key;
  std::variant<std::string, int64_t, double, bool, std::vector<std::string>> value;
};

struct SpanEvent {
  std::string name;
  uint64_t time_unix_nano = 0;
  std::vector<Attribute> attributes;
};

enum class SpanKind { Internal = 1, Server = 2, Client = 3 };
enum class StatusCode { Unset = 0, Ok = 1, Error = 2 };

struct Span {
  std::string trace_id;        // 32 hex digits
  std::string span_id;         // 16 hex digits
  std::string parent_span_id;  // 16 hex digits, or empty for a root
  std::string trace_state;
  std::string name;
  SpanKind kind = SpanKind::Internal;
  uint64_t start_unix_nano = 0;
  uint64_t end_unix_nano = 0;
  std::vector<Attribute> attributes;
  std::vector<SpanEvent> events;
  StatusCode status = StatusCode::Unset;
  std::string status_message;
  bool sampled = true;  // trace flags bit 0 (span.flags carries it)
};

// A log record as OTLP carries it (opentelemetry/proto/logs/v1/logs.proto): one audit row.
struct LogRecord {
  uint64_t time_unix_nano = 0;           // when the request completed
  uint64_t observed_time_unix_nano = 0;  // when the row was read for export
  int severity_number = 9;               // SeverityNumber: 9 INFO, 13 WARN, 17 ERROR
  std::string severity_text = "INFO";
  std::string body;
  std::vector<Attribute> attributes;
  std::string trace_id;  // 32 hex digits, or empty
  std::string span_id;   // 16 hex digits, or empty
};

// Who sends: the resource's attributes (service.name first) and the instrumentation scope.
struct Sender {
  std::vector<Attribute> resource;
  std::string scope_name = "sluice";
  std::string scope_version;
};

}  // namespace sluice::telemetry
