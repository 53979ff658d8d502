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

#include "server/telemetry/span.h"

namespace sluice::telemetry {

// Throws std::invalid_argument when `row` is not a JSON object.
LogRecord logRecordOfRow(std::string_view row_json, uint64_t observed_unix_nano);
LogRecord logRecordOfRow(const nlohmann::json& row, uint64_t observed_unix_nano);

// "2026-12-05T10:41:07.923456Z" (the rows' timestamps, UTC) in nanoseconds since the epoch; 0 when
// the text is not such a timestamp.
uint64_t unixNanoOf(std::string_view timestamp);

}  // namespace sluice::telemetry
