#include "server/telemetry/audit_log.h"

#include <chrono>
#include <stdexcept>

namespace sluice::telemetry {

namespace {

bool digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return !text.empty();
}

int number(std::string_view text) {
  int value = 0;
  for (const char c : text) value = value * 10 + (c - '0');
  return value;
}

bool hexOfLength(const nlohmann::json& value, size_t length) {
  if (!value.is_string()) return false;
  const auto& text = value.get_ref<const std::string&>();
  if (text.size() != length) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

uint64_t unixNanoOf(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != ' ') || t[13] != ':' ||
      t[16] != ':' || t.back() != 'Z') {
    return 0;
  }
  const std::string_view parts[] = {t.substr(0, 4), t.substr(5, 2), t.substr(8, 2),
                                    t.substr(11, 2), t.substr(14, 2), t.substr(17, 2)};
  for (const auto part : parts) {
    if (!digits(part)) return 0;
  }
  uint64_t nanos = 0;
  std::string_view fraction = t.substr(19, t.size() - 20);
  if (!fraction.empty()) {
    if (fraction.front() != '.' || !digits(fraction.substr(1)) || fraction.size() > 10) return 0;
    fraction.remove_prefix(1);
    uint64_t scale = 100'000'000;
    for (const char c : fraction) {
      nanos += static_cast<uint64_t>(c - '0') * scale;
      scale /= 10;
    }
  }
  using namespace std::chrono;
  const year_month_day date{year{number(parts[0])}, month{static_cast<unsigned>(number(parts[1]))},
                            day{static_cast<unsigned>(number(parts[2]))}};
  const int hours = number(parts[3]), minutes = number(parts[4]), seconds = number(parts[5]);
  if (!date.ok() || hours > 23 || minutes > 59 || seconds > 60 || date.year() < year{1970}) return 0;
  const auto since = sys_days(date).time_since_epoch() + std::chrono::hours(hours) + std::chrono::minutes(minutes) +
                     std::chrono::seconds(seconds);
  return static_cast<uint64_t>(duration_cast<nanoseconds>(since).count()) + nanos;
}

LogRecord logRecordOfRow(const nlohmann::json& row, uint64_t observed_unix_nano) {
  if (!row.is_object()) throw std::invalid_argument("an audit row is a JSON object");
  LogRecord record;
  record.observed_time_unix_nano = observed_unix_nano;
  const auto text = [&](const char* key) {
    const auto found = row.find(key);
    return found != row.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  record.time_unix_nano = unixNanoOf(text("completed_at"));
  if (record.time_unix_nano == 0) record.time_unix_nano = unixNanoOf(text("created_at"));
  const auto status = row.find("status");
  const int64_t code = status != row.end() && status->is_number_integer() ? status->get<int64_t>() : 0;
  if (code >= 500) {
    record.severity_number = 17;
    record.severity_text = "ERROR";
  } else if (code >= 400) {
    record.severity_number = 13;
    record.severity_text = "WARN";
  }
  std::string model = text("model");
  if (model.empty()) model = text("requested_model");
  record.body = text("outcome") + " " + std::to_string(code) + (model.empty() ? "" : " " + model);
  if (const auto id = row.find("trace_id"); id != row.end() && hexOfLength(*id, 32)) record.trace_id = *id;
  if (const auto id = row.find("span_id"); id != row.end() && hexOfLength(*id, 16) && !record.trace_id.empty()) {
    record.span_id = *id;
  }

  record.attributes.reserve(row.size() + 1);
  record.attributes.push_back({"event.name", std::string("sluice.request")});
  for (const auto& [key, value] : row.items()) {
    if (value.is_null() || key == "request_body" || key == "response_body") continue;
    std::string name = "sluice." + key;
    if (value.is_string()) {
      record.attributes.push_back({std::move(name), value.get<std::string>()});
    } else if (value.is_boolean()) {
      record.attributes.push_back({std::move(name), value.get<bool>()});
    } else if (value.is_number_integer()) {
      record.attributes.push_back({std::move(name), value.get<int64_t>()});
    } else if (value.is_number_float()) {
      record.attributes.push_back({std::move(name), value.get<double>()});
    } else {
      record.attributes.push_back(
          {std::move(name), value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
    }
  }
  return record;
}

LogRecord logRecordOfRow(std::string_view row_json, uint64_t observed_unix_nano) {
  const auto row = nlohmann::json::parse(row_json, nullptr, false);
  if (row.is_discarded()) throw std::invalid_argument("an audit row is a JSON object");
  return logRecordOfRow(row, observed_unix_nano);
}

}  // namespace sluice::telemetry
