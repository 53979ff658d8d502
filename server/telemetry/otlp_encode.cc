#include "server/telemetry/otlp_encode.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "server/text/hex.h"

namespace sluice::telemetry {

namespace {

// --- protobuf ----------------------------------------------------------------------------------

enum WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

class Writer {
 public:
  void varint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  void tag(int field, WireType type) { varint((static_cast<uint64_t>(field) << 3) | type); }
  void bytes(int field, std::string_view value) {
    tag(field, kLength);
    varint(value.size());
    out_.append(value);
  }
  // A string field, left out when empty (proto3 default).
  void text(int field, std::string_view value) {
    if (!value.empty()) bytes(field, value);
  }
  void fixed64(int field, uint64_t value) {
    tag(field, kFixed64);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void fixed32(int field, uint32_t value) {
    tag(field, kFixed32);
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void number(int field, uint64_t value) {
    tag(field, kVarint);
    varint(value);
  }
  void message(int field, const Writer& inner) { bytes(field, inner.out_); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string idBytes(std::string_view hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int high = text::hexValue(hex[i]);
    const int low = text::hexValue(hex[i + 1]);
    if (high < 0 || low < 0) return {};
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

// AnyValue { string 1; bool 2; int64 3; double 4; ArrayValue 5 { repeated AnyValue values 1 } }
Writer anyString(std::string_view text) {
  Writer w;
  w.bytes(1, text);  // an empty string is still the value set
  return w;
}

Writer anyValue(const decltype(Attribute::value)& value) {
  Writer w;
  if (const auto* text = std::get_if<std::string>(&value)) {
    w = anyString(*text);
  } else if (const auto* whole = std::get_if<int64_t>(&value)) {
    w.number(3, static_cast<uint64_t>(*whole));
  } else if (const auto* real = std::get_if<double>(&value)) {
    uint64_t bits = 0;
    std::memcpy(&bits, real, sizeof bits);
    w.fixed64(4, bits);
  } else if (const auto* flag = std::get_if<bool>(&value)) {
    w.number(2, *flag ? 1 : 0);
  } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    Writer array;
    for (const auto& item : *list) array.message(1, anyString(item));
    w.message(5, array);
  }
  return w;
}

// KeyValue { string key 1; AnyValue value 2 }
void attributes(Writer& into, int field, const std::vector<Attribute>& list) {
  for (const auto& attribute : list) {
    Writer pair;
    pair.bytes(1, attribute.key);
    pair.message(2, anyValue(attribute.value));
    into.message(field, pair);
  }
}

Writer spanMessage(const Span& span) {
  Writer w;
  w.bytes(1, idBytes(span.trace_id));
  w.bytes(2, idBytes(span.span_id));
  w.text(3, span.trace_state);
  if (!span.parent_span_id.empty()) w.bytes(4, idBytes(span.parent_span_id));
  w.bytes(5, span.name);
  w.number(6, static_cast<uint64_t>(span.kind));
  w.fixed64(7, span.start_unix_nano);
  w.fixed64(8, span.end_unix_nano);
  attributes(w, 9, span.attributes);
  for (const auto& event : span.events) {
    // Event { fixed64 time_unix_nano 1; string name 2; repeated KeyValue attributes 3 }
    Writer e;
    e.fixed64(1, event.time_unix_nano);
    e.bytes(2, event.name);
    attributes(e, 3, event.attributes);
    w.message(11, e);
  }
  // Status { string message 2; StatusCode code 3 }
  Writer status;
  status.text(2, span.status_message);
  if (span.status != StatusCode::Unset) status.number(3, static_cast<uint64_t>(span.status));
  w.message(15, status);
  // flags: bits 0-7 the W3C trace flags; bit 8 "the parent's remoteness is known", bit 9 "remote".
  w.fixed32(16, (span.sampled ? 1u : 0u) | 0x100u | (span.kind == SpanKind::Server && !span.parent_span_id.empty() ? 0x200u : 0u));
  return w;
}

Writer logMessage(const LogRecord& record) {
  Writer w;
  w.fixed64(1, record.time_unix_nano);
  w.number(2, static_cast<uint64_t>(record.severity_number));
  w.text(3, record.severity_text);
  w.message(5, anyString(record.body));
  attributes(w, 6, record.attributes);
  if (!record.trace_id.empty()) w.fixed32(8, 1u);  // the row's trace was sampled, or it has no trace id
  if (!record.trace_id.empty()) w.bytes(9, idBytes(record.trace_id));
  if (!record.span_id.empty()) w.bytes(10, idBytes(record.span_id));
  w.fixed64(11, record.observed_time_unix_nano);
  return w;
}

// Resource { repeated KeyValue attributes 1 } and InstrumentationScope { name 1; version 2 }, the
// first two fields of ResourceSpans/ScopeSpans and ResourceLogs/ScopeLogs alike; `items` are the
// spans or log records (field 2 of the scope message).
std::string envelope(const Sender& sender, const std::vector<Writer>& items) {
  Writer resource;
  attributes(resource, 1, sender.resource);
  Writer scope;
  scope.text(1, sender.scope_name);
  scope.text(2, sender.scope_version);
  Writer scoped;
  scoped.message(1, scope);
  for (const auto& item : items) scoped.message(2, item);
  Writer resourced;
  resourced.message(1, resource);
  resourced.message(2, scoped);
  Writer request;
  request.message(1, resourced);
  return request.take();
}

// --- JSON --------------------------------------------------------------------------------------

nlohmann::json jsonValue(const decltype(Attribute::value)& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return {{"stringValue", *text}};
  if (const auto* whole = std::get_if<int64_t>(&value)) return {{"intValue", std::to_string(*whole)}};
  if (const auto* real = std::get_if<double>(&value)) return {{"doubleValue", *real}};
  if (const auto* flag = std::get_if<bool>(&value)) return {{"boolValue", *flag}};
  nlohmann::json values = nlohmann::json::array();
  for (const auto& item : std::get<std::vector<std::string>>(value)) values.push_back({{"stringValue", item}});
  return {{"arrayValue", {{"values", values}}}};
}

nlohmann::json jsonAttributes(const std::vector<Attribute>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& attribute : list) out.push_back({{"key", attribute.key}, {"value", jsonValue(attribute.value)}});
  return out;
}

nlohmann::json jsonSpan(const Span& span) {
  nlohmann::json out = {{"traceId", span.trace_id},
                        {"spanId", span.span_id},
                        {"name", span.name},
                        {"kind", static_cast<int>(span.kind)},
                        {"startTimeUnixNano", std::to_string(span.start_unix_nano)},
                        {"endTimeUnixNano", std::to_string(span.end_unix_nano)},
                        {"attributes", jsonAttributes(span.attributes)},
                        {"flags", (span.sampled ? 1u : 0u) | 0x100u |
                                      (span.kind == SpanKind::Server && !span.parent_span_id.empty() ? 0x200u : 0u)}};
  if (!span.parent_span_id.empty()) out["parentSpanId"] = span.parent_span_id;
  if (!span.trace_state.empty()) out["traceState"] = span.trace_state;
  if (!span.events.empty()) {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& event : span.events) {
      events.push_back({{"timeUnixNano", std::to_string(event.time_unix_nano)},
                        {"name", event.name},
                        {"attributes", jsonAttributes(event.attributes)}});
    }
    out["events"] = std::move(events);
  }
  nlohmann::json status = nlohmann::json::object();
  if (span.status != StatusCode::Unset) status["code"] = static_cast<int>(span.status);
  if (!span.status_message.empty()) status["message"] = span.status_message;
  out["status"] = std::move(status);
  return out;
}

nlohmann::json jsonLog(const LogRecord& record) {
  nlohmann::json out = {{"timeUnixNano", std::to_string(record.time_unix_nano)},
                        {"observedTimeUnixNano", std::to_string(record.observed_time_unix_nano)},
                        {"severityNumber", record.severity_number},
                        {"severityText", record.severity_text},
                        {"body", {{"stringValue", record.body}}},
                        {"attributes", jsonAttributes(record.attributes)}};
  if (!record.trace_id.empty()) {
    out["traceId"] = record.trace_id;
    out["flags"] = 1;
  }
  if (!record.span_id.empty()) out["spanId"] = record.span_id;
  return out;
}

std::string jsonEnvelope(const Sender& sender, std::string_view resource_key, std::string_view scope_key,
                         std::string_view items_key, nlohmann::json items) {
  nlohmann::json scope = {{"name", sender.scope_name}};
  if (!sender.scope_version.empty()) scope["version"] = sender.scope_version;
  nlohmann::json scoped = {{"scope", scope}};
  scoped[std::string(items_key)] = std::move(items);
  nlohmann::json resourced = {{"resource", {{"attributes", jsonAttributes(sender.resource)}}}};
  resourced[std::string(scope_key)] = nlohmann::json::array({std::move(scoped)});
  nlohmann::json request = nlohmann::json::object();
  request[std::string(resource_key)] = nlohmann::json::array({std::move(resourced)});
  return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string encodeTracesProtobuf(const Sender& sender, const std::vector<Span>& spans) {
  std::vector<Writer> items;
  items.reserve(spans.size());
  for (const auto& span : spans) items.push_back(spanMessage(span));
  return envelope(sender, items);
}

std::string encodeTracesJson(const Sender& sender, const std::vector<Span>& spans) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& span : spans) list.push_back(jsonSpan(span));
  return jsonEnvelope(sender, "resourceSpans", "scopeSpans", "spans", std::move(list));
}

std::string encodeLogsProtobuf(const Sender& sender, const std::vector<LogRecord>& records) {
  std::vector<Writer> items;
  items.reserve(records.size());
  for (const auto& record : records) items.push_back(logMessage(record));
  return envelope(sender, items);
}

std::string encodeLogsJson(const Sender& sender, const std::vector<LogRecord>& records) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& record : records) list.push_back(jsonLog(record));
  return jsonEnvelope(sender, "resourceLogs", "scopeLogs", "logRecords", std::move(list));
}

}  // namespace sluice::telemetry
