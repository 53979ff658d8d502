#pragma once
// Conversions between the stores' values and SQL, shared by the PostgreSQL implementations.
// Timestamps cross as integer microseconds since the Unix epoch (exact both ways); text arrays as
// JSON.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/pqxx>

namespace sluice::store::sql {

using TimePoint = std::chrono::system_clock::time_point;

int64_t micros(TimePoint time);
TimePoint fromMicros(int64_t value);

// SQL for a timestamptz from the parameter `$n` holding micros: "('epoch'::timestamptz + $n * interval '1 microsecond')".
std::string timestampParam(int n);
// SQL reading column `column` as micros: "(extract(epoch FROM column) * 1000000)::bigint".
std::string microsOf(std::string_view column);

TimePoint timeOf(const pqxx::field& field);                     // precondition: not NULL
std::optional<TimePoint> optionalTime(const pqxx::field& field);
std::optional<std::string> optionalText(const pqxx::field& field);
// A field holding array_to_json(text[]).
std::vector<std::string> textArray(const pqxx::field& field);
// A JSON array of `values`, for `ARRAY(SELECT json_array_elements_text($n::json))`.
std::string jsonArray(const std::vector<std::string>& values);
// The bytes of a bytea field.
std::string bytes(const pqxx::field& field);

}  // namespace sluice::store::sql
