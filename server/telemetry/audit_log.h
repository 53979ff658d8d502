#pragma once
// An audit row (its JSON, server/audit/record_json.h) as an OTLP log record, for the company's log
// pipeline (docs/observability.md): every field the row has, as an attribute `sluice.<column>`
// (numbers as numbers, `attempts` and `masked` as their JSON text), except the stored request and
// response bodies, which stay in PostgreSQL; `event.name` sluice.request; the time the request
// completed; the severity by its status (INFO below 400, WARN below 500, ERROR from 500 on); the
// row's trace and span ids, so the record sits under the request's SERVER span. Pure.

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/telemetry/request_spans.h"
#include "server/telemetry/span.h"

namespace sluice::telemetry {

// Receives a row's attributes as its line is read: the key in two pieces (`prefix` "sluice." and the
// column, or "" and "event.name"), and the value, a view valid for the call only.
class RowAttributeSink {
 public:
  virtual void attribute(std::string_view prefix, std::string_view name, const AttributeView& value) = 0;

 protected:
  ~RowAttributeSink() = default;
};

// Reads one committed line as logRecordOfLine does, telling `sink` each attribute instead of
// keeping it: the record returned has everything but its attributes. What the protobuf exporter
// uses, so that a row is encoded without a copy of its fields (otlp_encode.h).
LogRecord readAuditLine(std::string_view line, uint64_t observed_unix_nano, RowAttributeSink& sink);

// One line as the audit writer hands committed rows over (audit::Writer's on_committed): COPY
// text on the live path, read field by field against audit::fields() without a detour through
// JSON; a JSON row (a replay, the spool) through logRecordOfRow. The same record either way, but
// for the JSON columns (attempts, masked), whose text is kept as the row spelled it. Throws
// std::invalid_argument for a line that is neither (a torn line).
LogRecord logRecordOfLine(std::string_view line, uint64_t observed_unix_nano);

// Throws std::invalid_argument when `row` is not a JSON object.
LogRecord logRecordOfRow(std::string_view row_json, uint64_t observed_unix_nano);
LogRecord logRecordOfRow(const nlohmann::json& row, uint64_t observed_unix_nano);

// "2026-12-05T10:41:07.923456Z" (the rows' timestamps, UTC) in nanoseconds since the epoch; 0 when
// the text is not such a timestamp.
uint64_t unixNanoOf(std::string_view timestamp);

}  // namespace sluice::telemetry
