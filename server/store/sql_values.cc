#include "server/store/sql_values.h"

#include <nlohmann/json.hpp>

namespace sluice::store::sql {

int64_t micros(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}

TimePoint fromMicros(int64_t value) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(value)));
}

std::string timestampParam(int n) {
  return "('epoch'::timestamptz + $" + std::to_string(n) + "::bigint * interval '1 microsecond')";
}

std::string microsOf(std::string_view column) {
  return "(extract(epoch FROM " + std::string(column) + ") * 1000000)::bigint";
}

TimePoint timeOf(const pqxx::field& field) { return fromMicros(field.as<int64_t>()); }

std::optional<TimePoint> optionalTime(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return timeOf(field);
}

std::optional<std::string> optionalText(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<std::string>();
}

std::vector<std::string> textArray(const pqxx::field& field) {
  if (field.is_null()) return {};
  return nlohmann::json::parse(field.as<std::string>()).get<std::vector<std::string>>();
}

std::string jsonArray(const std::vector<std::string>& values) { return nlohmann::json(values).dump(); }

std::string bytes(const pqxx::field& field) {
  if (field.is_null()) return {};
  const pqxx::binarystring binary(field);
  return binary.str();
}

}  // namespace sluice::store::sql
