#include "server/telemetry/otlp_encode.h"

#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "server/telemetry/audit_log.h"
#include "server/telemetry/protobuf_writer.h"

namespace sluice::telemetry {

namespace {

// --- protobuf ----------------------------------------------------------------------------------

using Writer = ProtobufWriter;

// AnyValue { ArrayValue array_value 5 { repeated AnyValue values 1 { string string_value 1 } } }:
// a list of strings (keyValue writes the scalar kinds itself).
void arrayValue(Writer& w, int field, const std::vector<std::string>& list) {
  const auto any = w.open(field);
  const auto array = w.open(5);
  for (const auto& item : list) {
    const auto one = w.open(1);
    w.bytes(1, item);
    w.close(one);
  }
  w.close(array);
  w.close(any);
}

// KeyValue { string key 1; AnyValue value 2 }, the key in two pieces, sized first and written in
// one piece (an audit row has about 45 of them): its header and key; returns where the AnyValue's
// own `any` bytes go, for the caller to write and commit.
[[gnu::always_inline]] inline char* keyValueHead(Writer& w, int field, std::string_view prefix, std::string_view key, size_t any) {
  const size_t key_size = prefix.size() + key.size();
  const size_t body = 2 + Writer::varintSize(key_size) + key_size + Writer::varintSize(any) + any;
  const uint64_t tag = Writer::key(field, Writer::kLength);
  char* at = w.reserve(20 + body);
  if (tag < 0x80 && body < 0x80) {
    // Nearly every attribute: every length one byte.
    *at++ = static_cast<char>(tag);
    *at++ = static_cast<char>(body);
  } else {
    at += Writer::put(at, tag);
    at += Writer::put(at, body);
  }
  *at++ = static_cast<char>(Writer::key(1, Writer::kLength));
  at += Writer::put(at, key_size);
  at = Writer::copy(Writer::copy(at, prefix), key);
  *at++ = static_cast<char>(Writer::key(2, Writer::kLength));
  at += Writer::put(at, any);
  return at;
}

void keyValue(Writer& w, int field, std::string_view prefix, std::string_view key, const AttributeView& value) {
  switch (value.index()) {
    case 0: {  // string_value 1
      const std::string_view text = *std::get_if<std::string_view>(&value);
      char* at = keyValueHead(w, field, prefix, key, 1 + Writer::varintSize(text.size()) + text.size());
      *at++ = static_cast<char>(Writer::key(1, Writer::kLength));
      at += Writer::put(at, text.size());
      w.commit(Writer::copy(at, text));
      return;
    }
    case 1: {  // int_value 3
      const auto whole = static_cast<uint64_t>(*std::get_if<int64_t>(&value));
      char* at = keyValueHead(w, field, prefix, key, 1 + Writer::varintSize(whole));
      *at++ = static_cast<char>(Writer::key(3, Writer::kVarint));
      w.commit(at + Writer::put(at, whole));
      return;
    }
    case 2: {  // bool_value 2
      char* at = keyValueHead(w, field, prefix, key, 2);
      *at++ = static_cast<char>(Writer::key(2, Writer::kVarint));
      *at++ = *std::get_if<bool>(&value) ? 1 : 0;
      w.commit(at);
      return;
    }
    case 3: {  // double_value 4
      uint64_t bits = 0;
      std::memcpy(&bits, std::get_if<double>(&value), sizeof bits);
      char* at = keyValueHead(w, field, prefix, key, 9);
      *at++ = static_cast<char>(Writer::key(4, Writer::kFixed64));
      for (int i = 0; i < 8; ++i) *at++ = static_cast<char>((bits >> (8 * i)) & 0xff);
      w.commit(at);
      return;
    }
    default: {  // array_value 5
      const auto pair = w.open(field);
      w.bytes(1, prefix, key);
      arrayValue(w, 2, **std::get_if<const std::vector<std::string>*>(&value));
      w.close(pair);
    }
  }
}

// Span messages, each as field 2 of a ScopeSpans, straight from walkRequestSpans.
class ProtobufSpans final : public SpanSink {
 public:
  explicit ProtobufSpans(std::string& out) : w_(out) {}
  uint32_t count() const { return count_; }
  void finish() { w_.finish(); }

  void beginSpan(const SpanHead& head) override {
    span_ = w_.open(2, 2);
    w_.id(1, head.trace_id);
    w_.id(2, head.span_id);
    w_.text(3, head.trace_state);
    w_.id(4, head.parent_span_id);
    w_.bytes(5, head.name);
    w_.number(6, static_cast<uint64_t>(head.kind));
    w_.fixed64(7, head.start_unix_nano);
    w_.fixed64(8, head.end_unix_nano);
    // flags: bits 0-7 the W3C trace flags; bit 8 "the parent's remoteness is known", bit 9 "remote".
    flags_ = (head.sampled ? 1u : 0u) | 0x100u |
             (head.kind == SpanKind::Server && !head.parent_span_id.empty() ? 0x200u : 0u);
  }
  void attribute(std::string_view key, const AttributeView& value) override {
    keyValue(w_, in_event_ ? 3 : 9, {}, key, value);
  }
  // Event { fixed64 time_unix_nano 1; string name 2; repeated KeyValue attributes 3 }
  void beginEvent(std::string_view name, uint64_t time_unix_nano) override {
    event_ = w_.open(11);
    in_event_ = true;
    w_.fixed64(1, time_unix_nano);
    w_.bytes(2, name);
  }
  void endEvent() override {
    w_.close(event_);
    in_event_ = false;
  }
  void endSpan(StatusCode status, std::string_view message) override {
    // Status { string message 2; StatusCode code 3 }
    const auto at = w_.open(15);
    w_.text(2, message);
    if (status != StatusCode::Unset) w_.number(3, static_cast<uint64_t>(status));
    w_.close(at);
    w_.fixed32(16, flags_);
    w_.close(span_);
    ++count_;
  }

 private:
  Writer w_;
  Writer::Mark span_;
  Writer::Mark event_;
  bool in_event_ = false;
  uint32_t flags_ = 0;
  uint32_t count_ = 0;
};

// A LogRecord message (field 2 of a ScopeLogs): its attributes as the line is read, then the rest.
class ProtobufLogRecord final : public RowAttributeSink {
 public:
  explicit ProtobufLogRecord(Writer& w) : w_(w), record_(w_.open(2, 2)) {}
  void attribute(std::string_view prefix, std::string_view name, const AttributeView& value) override {
    keyValue(w_, 6, prefix, name, value);
  }
  void finish(const LogRecord& record) {
    for (const auto& attribute : record.attributes) keyValue(w_, 6, {}, attribute.key, viewOf(attribute));
    w_.fixed64(1, record.time_unix_nano);
    w_.number(2, static_cast<uint64_t>(record.severity_number));
    w_.text(3, record.severity_text);
    const auto body = w_.open(5);
    w_.bytes(1, record.body);
    w_.close(body);
    if (!record.trace_id.empty()) w_.fixed32(8, 1u);  // the row's trace was sampled, or it has no trace id
    w_.id(9, record.trace_id);
    w_.id(10, record.span_id);
    w_.fixed64(11, record.observed_time_unix_nano);
    w_.close(record_);
  }

 private:
  Writer& w_;
  Writer::Mark record_;
};

// ExportXServiceRequest { ResourceX 1 { Resource 1 { repeated KeyValue attributes 1 }; ScopeX 2 {
// InstrumentationScope 1 { name 1; version 2 }; repeated item 2 } } }: the same shape for spans and
// log records; `items` appends the items, each already as field 2.
template <typename Items>
std::string envelope(const Sender& sender, size_t guess, Items items) {
  std::string out;
  out.reserve(256 + guess);
  Writer w(out);
  const auto resourced = w.open(1, 3);  // a batch is usually 16 KiB to 2 MiB
  const auto resource = w.open(1);
  for (const auto& attribute : sender.resource) keyValue(w, 1, {}, attribute.key, viewOf(attribute));
  w.close(resource);
  const auto scoped = w.open(2, 3);
  const auto scope = w.open(1);
  w.text(1, sender.scope_name);
  w.text(2, sender.scope_version);
  w.close(scope);
  items(w);
  w.close(scoped);
  w.close(resourced);
  w.finish();
  return out;
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

std::string dumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// {"<resource_key>":[{"resource":{...},"<scope_key>":[{"scope":{...},"<items_key>":[<items>]}]}]}
// where each item is one or more JSON objects joined by commas.
template <typename Item, typename Text>
std::string jsonEnvelope(const Sender& sender, std::string_view resource_key, std::string_view scope_key,
                         std::string_view items_key, const std::vector<Item>& items, Text text) {
  nlohmann::json scope = {{"name", sender.scope_name}};
  if (!sender.scope_version.empty()) scope["version"] = sender.scope_version;
  std::string out;
  out.append("{\"").append(resource_key).append("\":[{\"resource\":");
  out.append(dumpJson({{"attributes", jsonAttributes(sender.resource)}}));
  out.append(",\"").append(scope_key).append("\":[{\"scope\":").append(dumpJson(scope));
  out.append(",\"").append(items_key).append("\":[");
  bool first = true;
  for (const auto& item : items) {
    const std::string_view one = text(item);
    if (one.empty()) continue;
    if (!first) out += ',';
    out.append(one);
    first = false;
  }
  out.append("]}]}]}");
  return out;
}

}  // namespace

EncodedSpans encodeSpansProtobuf(const std::vector<Span>& spans) {
  EncodedSpans encoded;
  ProtobufSpans sink(encoded.bytes);
  walkSpans(spans, sink);
  sink.finish();
  encoded.count = sink.count();
  return encoded;
}

EncodedSpans encodeRequestSpansProtobuf(const audit::Record& row, const RequestFacts& facts,
                                        const RequestTrace& trace, const catalog::Catalog* catalog,
                                        audit::TimePoint now) {
  EncodedSpans encoded;
  encoded.bytes.reserve(1024);
  ProtobufSpans sink(encoded.bytes);
  walkRequestSpans(row, facts, trace, catalog, now, sink);
  sink.finish();
  encoded.count = sink.count();
  return encoded;
}

EncodedSpans encodeSpansJson(const std::vector<Span>& spans) {
  EncodedSpans encoded;
  for (const auto& span : spans) {
    if (encoded.count++ > 0) encoded.bytes += ',';
    encoded.bytes += dumpJson(jsonSpan(span));
  }
  return encoded;
}

std::string wrapTracesProtobuf(const Sender& sender, const std::vector<EncodedSpans>& batch) {
  size_t size = 0;
  for (const auto& item : batch) size += item.bytes.size();
  return envelope(sender, size, [&](Writer& w) {
    for (const auto& item : batch) w.raw(item.bytes);
  });
}

std::string wrapTracesJson(const Sender& sender, const std::vector<EncodedSpans>& batch) {
  return jsonEnvelope(sender, "resourceSpans", "scopeSpans", "spans", batch,
                      [](const EncodedSpans& item) { return std::string_view(item.bytes); });
}

std::string encodeTracesProtobuf(const Sender& sender, const std::vector<Span>& spans) {
  return wrapTracesProtobuf(sender, {encodeSpansProtobuf(spans)});
}

std::string encodeTracesJson(const Sender& sender, const std::vector<Span>& spans) {
  return wrapTracesJson(sender, {encodeSpansJson(spans)});
}

std::string encodeLogsProtobuf(const Sender& sender, const std::vector<LogRecord>& records) {
  return envelope(sender, records.size() * 1536, [&](Writer& w) {
    for (const auto& record : records) ProtobufLogRecord(w).finish(record);
  });
}

std::string encodeLogsJson(const Sender& sender, const std::vector<LogRecord>& records) {
  std::vector<std::string> items;
  items.reserve(records.size());
  for (const auto& record : records) items.push_back(dumpJson(jsonLog(record)));
  return jsonEnvelope(sender, "resourceLogs", "scopeLogs", "logRecords", items,
                      [](const std::string& item) { return std::string_view(item); });
}

std::string encodeAuditLinesProtobuf(const Sender& sender, const std::vector<std::string>& lines,
                                     uint64_t observed_unix_nano) {
  return envelope(sender, lines.size() * 1536, [&](Writer& w) {
    for (const auto& line : lines) {
      const size_t before = w.size();
      try {
        ProtobufLogRecord record(w);
        record.finish(readAuditLine(line, observed_unix_nano, record));
      } catch (const std::invalid_argument&) {
        w.truncate(before);  // not a row (cannot happen for committed rows); the others still go
      }
    }
  });
}

std::string encodeAuditLinesJson(const Sender& sender, const std::vector<std::string>& lines,
                                 uint64_t observed_unix_nano) {
  std::vector<LogRecord> records;
  records.reserve(lines.size());
  for (const auto& line : lines) {
    try {
      records.push_back(logRecordOfLine(line, observed_unix_nano));
    } catch (const std::invalid_argument&) {
      // Not a row (cannot happen for committed rows); the others still go.
    }
  }
  return encodeLogsJson(sender, records);
}

}  // namespace sluice::telemetry
