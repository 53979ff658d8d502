#include "server/telemetry/audit_log.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <chrono>
#include <stdexcept>

#include "server/audit/copy_text.h"
#include "server/audit/fields.h"
#include "server/audit/record_json.h"
#include "server/text/plain_run.h"

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

bool hexOfLength(std::string_view text, size_t length) {
  if (text.size() != length) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// What every record takes from its row whichever way the row is spelled: the time, the severity,
// the body and the trace.
void settle(LogRecord& record, int64_t status, std::string_view outcome, std::string_view model,
            std::string_view created_at, std::string_view completed_at, std::string_view trace_id,
            std::string_view span_id) {
  record.time_unix_nano = unixNanoOf(completed_at);
  if (record.time_unix_nano == 0) record.time_unix_nano = unixNanoOf(created_at);
  if (status >= 500) {
    record.severity_number = 17;
    record.severity_text = "ERROR";
  } else if (status >= 400) {
    record.severity_number = 13;
    record.severity_text = "WARN";
  }
  record.body.reserve(outcome.size() + model.size() + 5);
  record.body.append(outcome).append(" ").append(std::to_string(status));
  if (!model.empty()) record.body.append(" ").append(model);
  if (hexOfLength(trace_id, 32)) {
    record.trace_id = std::string(trace_id);
    if (hexOfLength(span_id, 16)) record.span_id = std::string(span_id);
  }
}

bool bodyColumn(std::string_view column) { return column == "request_body" || column == "response_body"; }

constexpr std::string_view kPrefix = "sluice.";

// Keeps the attributes, as Attribute values.
class RowAttributes final : public RowAttributeSink {
 public:
  explicit RowAttributes(std::vector<Attribute>& into) : into_(into) {}
  void attribute(std::string_view prefix, std::string_view name, const AttributeView& value) override {
    std::string key;
    key.reserve(prefix.size() + name.size());
    key.append(prefix).append(name);
    into_.push_back({std::move(key), ownedValue(value)});
  }

 private:
  std::vector<Attribute>& into_;
};

// A JSON row's record (a replay's, the spool's).
LogRecord readJsonRow(const nlohmann::json& row, uint64_t observed_unix_nano, RowAttributeSink& sink) {
  if (!row.is_object()) throw std::invalid_argument("an audit row is a JSON object");
  LogRecord record;
  record.observed_time_unix_nano = observed_unix_nano;
  const auto text = [&](const char* key) -> std::string_view {
    const auto found = row.find(key);
    return found != row.end() && found->is_string() ? std::string_view(found->get_ref<const std::string&>())
                                                    : std::string_view();
  };
  const auto status = row.find("status");
  const int64_t code = status != row.end() && status->is_number_integer() ? status->get<int64_t>() : 0;
  const std::string_view model = text("model").empty() ? text("requested_model") : text("model");
  settle(record, code, text("outcome"), model, text("created_at"), text("completed_at"), text("trace_id"),
         text("span_id"));
  sink.attribute("", "event.name", AttributeView(std::string_view("sluice.request")));
  for (const auto& [key, value] : row.items()) {
    if (value.is_null() || bodyColumn(key)) continue;
    if (value.is_string()) {
      sink.attribute(kPrefix, key, AttributeView(std::string_view(value.get_ref<const std::string&>())));
    } else if (value.is_boolean()) {
      sink.attribute(kPrefix, key, AttributeView(value.get<bool>()));
    } else if (value.is_number_integer()) {
      sink.attribute(kPrefix, key, AttributeView(value.get<int64_t>()));
    } else if (value.is_number_float()) {
      sink.attribute(kPrefix, key, AttributeView(value.get<double>()));
    } else {
      const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      sink.attribute(kPrefix, key, AttributeView(std::string_view(text)));
    }
  }
  return record;
}

// Where the COPY field at the start of `rest` ends (its tab, or the end), and whether it holds a
// backslash (an escape to undo): one pass, eight bytes at a time.
size_t fieldEnd(std::string_view rest, bool& escaped) {
  static_assert(std::endian::native == std::endian::little, "a word's first byte is its lowest");
  size_t i = 0;
  for (; i + 8 <= rest.size(); i += 8) {
    const uint64_t word = text::swar::load(rest.data() + i);
    const uint64_t tabs = text::swar::equal(word, '\t');
    const uint64_t slashes = text::swar::equal(word, '\\');
    if (tabs == 0) {
      escaped = escaped || slashes != 0;
      continue;
    }
    // The lowest flagged byte of each mask is a true match (a false flag only ever sits above
    // one), so the first tab is exact, and so is "a backslash before it".
    const int tab = std::countr_zero(tabs);
    escaped = escaped || (slashes & ((uint64_t{1} << tab) - 1)) != 0;
    return i + static_cast<size_t>(tab / 8);
  }
  for (; i < rest.size(); ++i) {
    if (rest[i] == '\t') return i;
    if (rest[i] == '\\') escaped = true;
  }
  return i;
}

// Where the columns a record reads sit in the field table.
struct Columns {
  size_t status = SIZE_MAX, outcome = SIZE_MAX, model = SIZE_MAX, requested_model = SIZE_MAX, trace_id = SIZE_MAX,
         span_id = SIZE_MAX, created_at = SIZE_MAX, completed_at = SIZE_MAX, request_body = SIZE_MAX,
         response_body = SIZE_MAX;
};

const Columns& columns() {
  static const Columns found = [] {
    Columns at;
    const auto table = audit::fields();
    for (size_t i = 0; i < table.size(); ++i) {
      const std::string_view name = table[i].column.name;
      size_t* slot = name == "status"            ? &at.status
                     : name == "outcome"         ? &at.outcome
                     : name == "model"           ? &at.model
                     : name == "requested_model" ? &at.requested_model
                     : name == "trace_id"        ? &at.trace_id
                     : name == "span_id"         ? &at.span_id
                     : name == "created_at"      ? &at.created_at
                     : name == "completed_at"    ? &at.completed_at
                     : name == "request_body"    ? &at.request_body
                     : name == "response_body"   ? &at.response_body
                                                 : nullptr;
      if (slot != nullptr) *slot = i;
    }
    return at;
  }();
  return found;
}

// A COPY line's record, read field by field against the field table (no detour through JSON).
LogRecord readCopyLine(std::string_view line, uint64_t observed_unix_nano, RowAttributeSink& sink) {
  const auto table = audit::fields();
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  // Read as it is walked: a line of too few fields or too many throws at its end (the caller
  // drops what the sink was told).
  const auto torn = [] { return std::invalid_argument("not an audit row's COPY line"); };
  LogRecord record;
  record.observed_time_unix_nano = observed_unix_nano;
  sink.attribute("", "event.name", AttributeView(std::string_view("sluice.request")));
  const Columns& at = columns();
  int64_t status = 0;
  std::string outcome, model, requested_model, trace_id, span_id, scratch;
  std::string_view created_at, completed_at;
  std::string_view rest = line;
  bool more = true;
  size_t i = 0;
  for (; more; ++i) {
    if (i == table.size()) throw torn();
    const std::string_view column = table[i].column.name;
    bool escaped = false;
    const size_t tab = fieldEnd(rest, escaped);
    const std::string_view field = rest.substr(0, tab);
    more = tab != rest.size();
    rest = more ? rest.substr(tab + 1) : std::string_view();
    if (field == "\\N" || i == at.request_body || i == at.response_body) continue;
    switch (table[i].kind) {
      case audit::FieldKind::Text:
      case audit::FieldKind::Json: {
        // A Json column (attempts, masked) is kept as its JSON text.
        std::string_view value = field;
        if (escaped) {
          scratch = audit::unescapeCopyField(field);
          value = scratch;
        }
        if (i == at.outcome) outcome = value;
        else if (i == at.model) model = value;
        else if (i == at.requested_model) requested_model = value;
        else if (i == at.trace_id) trace_id = value;
        else if (i == at.span_id) span_id = value;
        sink.attribute(kPrefix, column, AttributeView(value));
        break;
      }
      case audit::FieldKind::Time:
        if (i == at.created_at) created_at = field;
        else if (i == at.completed_at) completed_at = field;
        sink.attribute(kPrefix, column, AttributeView(field));
        break;
      case audit::FieldKind::Integer: {
        int64_t number = 0;
        const auto parsed = std::from_chars(field.data(), field.data() + field.size(), number);
        if (parsed.ec != std::errc() || parsed.ptr != field.data() + field.size()) {
          throw std::invalid_argument("not an audit row's COPY line: " + std::string(column) + " is not a number");
        }
        if (i == at.status) status = number;
        sink.attribute(kPrefix, column, AttributeView(number));
        break;
      }
      case audit::FieldKind::Boolean:
        if (field != "t" && field != "f") {
          throw std::invalid_argument("not an audit row's COPY line: " + std::string(column) + " is not t or f");
        }
        sink.attribute(kPrefix, column, AttributeView(field == "t"));
        break;
    }
  }
  if (i < audit::kOldestCopyFields) throw torn();
  settle(record, status, outcome, model.empty() ? requested_model : model, created_at, completed_at, trace_id,
         span_id);
  return record;
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

LogRecord readAuditLine(std::string_view line, uint64_t observed_unix_nano, RowAttributeSink& sink) {
  if (!line.empty() && line.front() == '{') {
    const auto row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_discarded()) throw std::invalid_argument("an audit row is a JSON object");
    return readJsonRow(row, observed_unix_nano, sink);
  }
  return readCopyLine(line, observed_unix_nano, sink);
}

LogRecord logRecordOfLine(std::string_view line, uint64_t observed_unix_nano) {
  std::vector<Attribute> attributes;
  attributes.reserve(audit::fields().size() + 1);
  RowAttributes sink(attributes);
  LogRecord record = readAuditLine(line, observed_unix_nano, sink);
  record.attributes = std::move(attributes);
  return record;
}

LogRecord logRecordOfRow(const nlohmann::json& row, uint64_t observed_unix_nano) {
  std::vector<Attribute> attributes;
  attributes.reserve(row.size() + 1);
  RowAttributes sink(attributes);
  LogRecord record = readJsonRow(row, observed_unix_nano, sink);
  record.attributes = std::move(attributes);
  return record;
}

LogRecord logRecordOfRow(std::string_view row_json, uint64_t observed_unix_nano) {
  const auto row = nlohmann::json::parse(row_json, nullptr, false);
  if (row.is_discarded()) throw std::invalid_argument("an audit row is a JSON object");
  return logRecordOfRow(row, observed_unix_nano);
}

}  // namespace sluice::telemetry
