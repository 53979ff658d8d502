#include "server/audit/fields.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/audit/copy_text.h"
#include "server/log/json_log.h"

namespace sluice::audit {

namespace {

// What the row of a request that never ended says instead of what the request had so far.
constexpr int kInterruptedStatus = 500;
constexpr std::string_view kInterruptedErrorKey = "replica_stopped";
constexpr std::string_view kInterruptedErrorMessage =
    "the replica serving this request stopped (killed or crashed) before it ended; "
    "recorded from its journal when it started again";

FieldValue nullValue() {
  FieldValue value;
  value.null = true;
  return value;
}
FieldValue text(std::string_view chars) {
  FieldValue value;
  value.null = chars.empty();
  value.text = chars;
  return value;
}
FieldValue optionalText(const std::optional<std::string>& value) { return value ? text(*value) : nullValue(); }
FieldValue time(TimePoint at) {
  FieldValue value;
  value.null = at == TimePoint{};
  value.time = at;
  return value;
}
FieldValue integer(int64_t number) {
  FieldValue value;
  value.integer = number;
  return value;
}
FieldValue integer(const std::optional<int64_t>& value) { return value ? integer(*value) : nullValue(); }
FieldValue boolean(bool value) { return integer(value ? 1 : 0); }

// Text as a JSON string, cleaned as FieldKind::Text says; empty is null.
void appendJsonText(std::string& out, std::string_view value) {
  if (value.empty()) {
    out += "null";
  } else if (value.find('\0') == std::string_view::npos) {
    log::appendJsonString(out, value);
  } else {
    std::string clean(value);
    clean.erase(std::remove(clean.begin(), clean.end(), '\0'), clean.end());
    log::appendJsonString(out, clean);
  }
}

void appendMember(std::string& out, bool first, std::string_view key) {
  if (!first) out += ',';
  out += '"';
  out += key;  // plain ASCII names
  out += "\":";
}

// [{"endpoint":…,"provider":…,"status":503,"result":…,"duration_ms":12,"error":…}]: "error" only
// when there is one.
FieldValue attempts(const RowSource& source, std::string& scratch) {
  const auto& list = source.record.attempts;
  if (list.empty()) return text("[]");
  scratch.clear();
  scratch.reserve(128 * list.size() + 2);
  scratch += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    const AttemptRecord& attempt = list[i];
    if (i > 0) scratch += ',';
    scratch += '{';
    appendMember(scratch, true, "endpoint");
    appendJsonText(scratch, attempt.endpoint);
    appendMember(scratch, false, "provider");
    appendJsonText(scratch, attempt.provider);
    appendMember(scratch, false, "status");
    scratch += std::to_string(attempt.status);
    appendMember(scratch, false, "result");
    appendJsonText(scratch, attempt.result);
    appendMember(scratch, false, "duration_ms");
    scratch += std::to_string(attempt.duration_ms);
    if (!attempt.error.empty()) {
      appendMember(scratch, false, "error");
      appendJsonText(scratch, attempt.error);
    }
    scratch += '}';
  }
  scratch += ']';
  return text(scratch);
}

// {"api_key":1,"email":2}: occurrences per kind, never values; NULL when nothing was masked.
FieldValue masked(const RowSource& source, std::string& scratch) {
  if (source.record.masked.empty()) return nullValue();
  scratch.clear();
  scratch += '{';
  bool first = true;
  for (const auto& [kind, count] : source.record.masked) {
    if (!first) scratch += ',';
    first = false;
    log::appendJsonString(scratch, kind);
    scratch += ':';
    scratch += std::to_string(count);
  }
  scratch += '}';
  return text(scratch);
}

using Source = const RowSource&;
using Scratch = std::string&;

// The value of a Record member, by its type.
FieldValue valueOf(const std::string& member) { return text(member); }
FieldValue valueOf(const std::optional<std::string>& member) { return optionalText(member); }
FieldValue valueOf(TimePoint member) { return time(member); }
FieldValue valueOf(int64_t member) { return integer(member); }
FieldValue valueOf(const std::optional<int64_t>& member) { return integer(member); }
FieldValue valueOf(bool member) { return boolean(member); }

template <auto kMember>
FieldValue of(Source source, Scratch) {
  return valueOf(source.record.*kMember);
}
template <auto kMember>
FieldValue usageOf(Source source, Scratch) {
  return integer(source.record.usage.*kMember);
}

// NOTE: a NOT NULL column's fallback is the default its migration gives it; id, created_at and
// outcome have none (a row object must carry them). fields_test holds both against the database.
constexpr std::string_view kText = "text";
constexpr std::string_view kTime = "timestamp with time zone";
constexpr std::string_view kBigint = "bigint";
constexpr std::string_view kJsonb = "jsonb";
constexpr std::string_view kBoolean = "boolean";

const std::array<Field, 45> kFields = {{
    {{"id", kText, ""}, FieldKind::Text, of<&Record::id>},
    {{"created_at", kTime, ""}, FieldKind::Time, of<&Record::created_at>},
    {{"completed_at", kTime, ""}, FieldKind::Time,
     [](Source s, Scratch) { return time(s.interrupted ? s.record.created_at : s.record.completed_at); }},
    {{"user_name", kText, ""}, FieldKind::Text, of<&Record::user>},
    {{"api_key_id", kText, ""}, FieldKind::Text, of<&Record::api_key_id>},
    {{"project", kText, ""}, FieldKind::Text, of<&Record::project>},
    {{"project_source", kText, ""}, FieldKind::Text, of<&Record::project_source>},
    {{"client_family", kText, ""}, FieldKind::Text, of<&Record::client_family>},
    {{"client_wire", kText, ""}, FieldKind::Text, of<&Record::client_wire>},
    {{"requested_model", kText, ""}, FieldKind::Text, of<&Record::requested_model>},
    {{"model", kText, ""}, FieldKind::Text, of<&Record::model>},
    {{"route_id", kText, ""}, FieldKind::Text, of<&Record::route_id>},
    {{"strategy", kText, ""}, FieldKind::Text, of<&Record::strategy>},
    {{"provider", kText, ""}, FieldKind::Text, of<&Record::provider>},
    {{"endpoint", kText, ""}, FieldKind::Text, of<&Record::endpoint>},
    {{"served_provider", kText, ""}, FieldKind::Text, of<&Record::served_provider>},
    {{"served_endpoint", kText, ""}, FieldKind::Text, of<&Record::served_endpoint>},
    {{"route_match", kText, ""}, FieldKind::Text, of<&Record::route_match>},
    {{"attempts", kJsonb, "'[]'::jsonb"}, FieldKind::Json, attempts},
    {{"is_streaming", kBoolean, "false"}, FieldKind::Boolean, of<&Record::is_streaming>},
    {{"status", "integer", "0"}, FieldKind::Integer,
     [](Source s, Scratch) { return integer(s.interrupted ? kInterruptedStatus : s.record.status); }},
    // An unset outcome is internal_error: the column is NOT NULL.
    {{"outcome", kText, ""}, FieldKind::Text,
     [](Source s, Scratch) {
       if (s.interrupted) return text(outcome::kInterrupted);
       return text(s.record.outcome.empty() ? outcome::kInternalError : std::string_view(s.record.outcome));
     }},
    {{"error_key", kText, ""}, FieldKind::Text,
     [](Source s, Scratch) { return text(s.interrupted ? kInterruptedErrorKey : std::string_view(s.record.error_key)); }},
    {{"error_message", kText, ""}, FieldKind::Text,
     [](Source s, Scratch) {
       return text(s.interrupted ? kInterruptedErrorMessage : std::string_view(s.record.error_message));
     }},
    {{"input_tokens", kBigint, "0"}, FieldKind::Integer, usageOf<&wire::Usage::input_tokens>},
    {{"output_tokens", kBigint, "0"}, FieldKind::Integer, usageOf<&wire::Usage::output_tokens>},
    {{"cache_read_tokens", kBigint, "0"}, FieldKind::Integer, usageOf<&wire::Usage::cache_read_tokens>},
    {{"cache_write_tokens", kBigint, "0"}, FieldKind::Integer, usageOf<&wire::Usage::cache_write_tokens>},
    {{"reasoning_tokens", kBigint, "0"}, FieldKind::Integer, usageOf<&wire::Usage::reasoning_tokens>},
    {{"cost_microdollars", kBigint, "0"}, FieldKind::Integer, of<&Record::cost_microdollars>},
    {{"cache_savings_microdollars", kBigint, "0"}, FieldKind::Integer, of<&Record::cache_savings_microdollars>},
    {{"latency_ms", kBigint, ""}, FieldKind::Integer, of<&Record::latency_ms>},
    {{"ttfb_ms", kBigint, ""}, FieldKind::Integer, of<&Record::ttfb_ms>},
    {{"upstream_ms", kBigint, ""}, FieldKind::Integer, of<&Record::upstream_ms>},
    {{"aborted", kBoolean, "false"}, FieldKind::Boolean, of<&Record::aborted>},
    {{"probe", kBoolean, "false"}, FieldKind::Boolean, of<&Record::probe>},
    {{"request_body", kText, ""}, FieldKind::Text, of<&Record::request_body>},
    {{"response_body", kText, ""}, FieldKind::Text, of<&Record::response_body>},
    {{"replica", kText, ""}, FieldKind::Text, of<&Record::replica>},
    {{"masked", kJsonb, ""}, FieldKind::Json, masked},
    {{"unit", kText, ""}, FieldKind::Text, of<&Record::unit>},
    {{"units", kBigint, "0"}, FieldKind::Integer, of<&Record::units>},
    {{"client_address", kText, ""}, FieldKind::Text, of<&Record::client_address>},
    {{"trace_id", kText, ""}, FieldKind::Text, of<&Record::trace_id>},
    {{"span_id", kText, ""}, FieldKind::Text, of<&Record::span_id>},
}};

std::string invalid(std::string_view column, std::string_view what) {
  return "an audit COPY line's " + std::string(column) + " is not " + std::string(what);
}

}  // namespace

std::span<const Field> fields() { return kFields; }

std::span<const store::AuditColumn> auditColumns() {
  static const std::vector<store::AuditColumn> columns = [] {
    std::vector<store::AuditColumn> list;
    for (const Field& field : kFields) list.push_back(field.column);
    return list;
  }();
  return columns;
}

void appendCopyValue(std::string& out, FieldKind kind, const FieldValue& value) {
  if (value.null) {
    out += "\\N";
    return;
  }
  switch (kind) {
    case FieldKind::Text:
    case FieldKind::Json: appendCopyEscaped(out, value.text); break;
    case FieldKind::Time: out += store::formatTimestamp(value.time); break;
    case FieldKind::Integer: {
      char buffer[24];
      const auto written = std::to_chars(buffer, buffer + sizeof buffer, value.integer);
      out.append(buffer, written.ptr);
      break;
    }
    case FieldKind::Boolean: out += value.integer != 0 ? 't' : 'f'; break;
  }
}

void appendJsonValue(std::string& out, FieldKind kind, const FieldValue& value) {
  if (value.null) {
    out += "null";
    return;
  }
  switch (kind) {
    case FieldKind::Text: appendJsonText(out, value.text); break;
    case FieldKind::Json: out += value.text; break;
    case FieldKind::Time:
      out += '"';
      out += store::formatTimestamp(value.time);
      out += '"';
      break;
    case FieldKind::Integer: out += std::to_string(value.integer); break;
    case FieldKind::Boolean: out += value.integer != 0 ? "true" : "false"; break;
  }
}

void appendJsonFromCopy(std::string& out, FieldKind kind, std::string_view copy_field, std::string_view column) {
  if (copy_field == "\\N") {
    out += "null";
    return;
  }
  const std::string value = unescapeCopyField(copy_field);
  switch (kind) {
    case FieldKind::Text:
    case FieldKind::Time: log::appendJsonString(out, value); break;
    case FieldKind::Json:
      if (!nlohmann::json::accept(value)) throw std::invalid_argument(invalid(column, "JSON"));
      out += value;
      break;
    case FieldKind::Boolean:
      if (value != "t" && value != "f") throw std::invalid_argument(invalid(column, "t or f"));
      out += value == "t" ? "true" : "false";
      break;
    case FieldKind::Integer: {
      int64_t number = 0;
      const auto parsed = std::from_chars(value.data(), value.data() + value.size(), number);
      if (value.empty() || parsed.ec != std::errc() || parsed.ptr != value.data() + value.size()) {
        throw std::invalid_argument(invalid(column, "a number"));
      }
      out += value;
      break;
    }
  }
}

}  // namespace sluice::audit
