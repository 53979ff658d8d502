#include "server/audit/record_json.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/log/json_log.h"
#include "server/store/audit_store.h"
#include "server/text/utf8.h"

namespace sluice::audit {

namespace {

// One JSON object written straight into a string: this runs on the request's thread for every
// request, and building an nlohmann::json first (a std::map node and a string per column) was
// a fifth of a passthrough request's CPU.
class RowWriter {
 public:
  explicit RowWriter(std::string& out) : out_(out) {}

  void open() {
    out_ += '{';
    first_ = true;
  }
  void close() { out_ += '}'; }

  // Text PostgreSQL can store: NUL bytes dropped, invalid UTF-8 replaced; empty is NULL.
  void text(std::string_view key, std::string_view value) {
    name(key);
    if (value.empty()) {
      out_ += "null";
    } else if (value.find('\0') == std::string_view::npos) {
      log::appendJsonString(out_, value);
    } else {
      std::string clean(value);
      clean.erase(std::remove(clean.begin(), clean.end(), '\0'), clean.end());
      log::appendJsonString(out_, clean);
    }
  }
  void number(std::string_view key, int64_t value) {
    name(key);
    out_ += std::to_string(value);
  }
  void number(std::string_view key, const std::optional<int64_t>& value) {
    if (value) return number(key, *value);
    name(key);
    out_ += "null";
  }
  void boolean(std::string_view key, bool value) {
    name(key);
    out_ += value ? "true" : "false";
  }
  void time(std::string_view key, TimePoint value) {
    name(key);
    if (value == TimePoint{}) {
      out_ += "null";
      return;
    }
    out_ += '"';
    out_ += store::formatTimestamp(value);
    out_ += '"';
  }
  void nullable(std::string_view key, const std::optional<std::string>& value) {
    if (value) return text(key, *value);
    name(key);
    out_ += "null";
  }
  // Starts a member whose value the caller writes.
  void name(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;  // column names: plain ASCII
    out_ += "\":";
  }

 private:
  std::string& out_;
  bool first_ = true;
};

void appendAttempts(std::string& out, const std::vector<AttemptRecord>& attempts) {
  out += '[';
  for (size_t i = 0; i < attempts.size(); ++i) {
    const AttemptRecord& attempt = attempts[i];
    if (i > 0) out += ',';
    RowWriter item(out);
    item.open();
    item.text("endpoint", attempt.endpoint);
    item.text("provider", attempt.provider);
    item.number("status", attempt.status);
    item.text("result", attempt.result);
    item.number("duration_ms", attempt.duration_ms);
    if (!attempt.error.empty()) item.text("error", attempt.error);
    item.close();
  }
  out += ']';
}

// {"email":2,"api_key":1}: counts per kind, never values.
void appendMasked(std::string& out, const std::map<std::string, int64_t>& masked) {
  out += '{';
  bool first = true;
  for (const auto& [kind, count] : masked) {
    if (!first) out += ',';
    first = false;
    log::appendJsonString(out, kind);
    out += ':';
    out += std::to_string(count);
  }
  out += '}';
}

// One COPY text line, field by field: the column order is store::kAuditColumns', checked by the
// tests against the JSON of the same record.
class CopyWriter {
 public:
  explicit CopyWriter(std::string& out) : out_(out) {}

  void text(std::string_view value) {
    separate();
    if (value.empty()) {
      out_ += "\\N";
      return;
    }
    escaped(value);
  }
  void number(int64_t value) {
    separate();
    char buffer[24];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
    out_.append(buffer, written.ptr);
  }
  void number(const std::optional<int64_t>& value) {
    if (value) return number(*value);
    separate();
    out_ += "\\N";
  }
  void boolean(bool value) {
    separate();
    out_ += value ? 't' : 'f';
  }
  void time(TimePoint value) {
    separate();
    if (value == TimePoint{}) {
      out_ += "\\N";
      return;
    }
    out_ += store::formatTimestamp(value);
  }
  void nullable(const std::optional<std::string>& value) {
    if (value) return text(*value);
    separate();
    out_ += "\\N";
  }
  // A value already JSON (valid UTF-8, no NUL): only COPY's own escaping.
  void json(std::string_view value) {
    separate();
    escaped(value);
  }
  void end() { out_ += '\n'; }

 private:
  void separate() {
    if (!first_) out_ += '\t';
    first_ = false;
  }
  // COPY's escapes, with what toRowJson does to text PostgreSQL cannot store: NUL removed, each
  // broken UTF-8 sequence one U+FFFD.
  void escaped(std::string_view value) {
    size_t run = 0;
    size_t i = 0;
    const auto flush = [&](size_t end) { out_.append(value.data() + run, end - run); };
    while (i < value.size()) {
      const auto c = static_cast<unsigned char>(value[i]);
      if (c >= 0x80) {
        if (const size_t n = text::utf8SequenceLength(value, i); n > 0) {
          i += n;
          continue;
        }
        flush(i);
        out_ += "\xEF\xBF\xBD";
        run = ++i;
        continue;
      }
      if (c != '\\' && c != '\t' && c != '\n' && c != '\r' && c != 0) {
        ++i;
        continue;
      }
      flush(i);
      switch (c) {
        case '\\': out_ += "\\\\"; break;
        case '\t': out_ += "\\t"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        default: break;  // NUL: removed
      }
      run = ++i;
    }
    flush(i);
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace

std::string toRowJson(const Record& record) {
  std::string out;
  out.reserve(1024 + (record.request_body ? record.request_body->size() : 0) +
              (record.response_body ? record.response_body->size() : 0));
  RowWriter row(out);
  row.open();
  row.text("id", record.id);
  row.time("created_at", record.created_at);
  row.time("completed_at", record.completed_at);
  row.text("user_name", record.user);
  row.text("api_key_id", record.api_key_id);
  row.text("project", record.project);
  row.text("project_source", record.project_source);
  row.text("client_family", record.client_family);
  row.text("client_wire", record.client_wire);
  row.text("requested_model", record.requested_model);
  row.text("model", record.model);
  row.text("route_id", record.route_id);
  row.text("strategy", record.strategy);
  row.text("provider", record.provider);
  row.text("endpoint", record.endpoint);
  row.text("served_provider", record.served_provider);
  row.text("served_endpoint", record.served_endpoint);
  row.text("route_match", record.route_match);
  row.name("attempts");
  appendAttempts(out, record.attempts);
  row.boolean("is_streaming", record.is_streaming);
  row.number("status", record.status);
  row.text("outcome", record.outcome.empty() ? outcome::kInternalError : std::string_view(record.outcome));
  row.text("error_key", record.error_key);
  row.text("error_message", record.error_message);
  row.number("input_tokens", record.usage.input_tokens);
  row.number("output_tokens", record.usage.output_tokens);
  row.number("cache_read_tokens", record.usage.cache_read_tokens);
  row.number("cache_write_tokens", record.usage.cache_write_tokens);
  row.number("reasoning_tokens", record.usage.reasoning_tokens);
  row.number("cost_microdollars", record.cost_microdollars);
  row.number("cache_savings_microdollars", record.cache_savings_microdollars);
  row.text("unit", record.unit);
  row.number("units", record.units);
  row.number("latency_ms", record.latency_ms);
  row.number("ttfb_ms", record.ttfb_ms);
  row.number("upstream_ms", record.upstream_ms);
  row.boolean("aborted", record.aborted);
  row.boolean("probe", record.probe);
  row.nullable("request_body", record.request_body);
  row.nullable("response_body", record.response_body);
  row.text("replica", record.replica);
  row.name("masked");
  if (record.masked.empty()) {
    out += "null";
  } else {
    appendMasked(out, record.masked);
  }
  row.close();
  return out;
}

}  // namespace sluice::audit

namespace sluice::audit {

namespace {

// The fields an interrupted request's row overrides in what the request had so far.
struct Interruption {
  std::string_view outcome = audit::outcome::kInterrupted;
  int status = 500;
  std::string_view error_key = "replica_stopped";
  std::string_view error_message =
      "the replica serving this request stopped (killed or crashed) before it ended; "
      "recorded from its journal when it started again";
};

void appendCopyLine(std::string& out, const Record& record, const Interruption* interrupted) {
  out.reserve(out.size() + 640 + (record.request_body ? record.request_body->size() : 0) +
              (record.response_body ? record.response_body->size() : 0));
  CopyWriter row(out);
  row.text(record.id);
  row.time(record.created_at);
  row.time(interrupted ? record.created_at : record.completed_at);
  row.text(record.user);
  row.text(record.api_key_id);
  row.text(record.project);
  row.text(record.project_source);
  row.text(record.client_family);
  row.text(record.client_wire);
  row.text(record.requested_model);
  row.text(record.model);
  row.text(record.route_id);
  row.text(record.strategy);
  row.text(record.provider);
  row.text(record.endpoint);
  row.text(record.served_provider);
  row.text(record.served_endpoint);
  row.text(record.route_match);
  if (record.attempts.empty()) {
    row.json("[]");
  } else {
    std::string attempts;
    attempts.reserve(128 * record.attempts.size() + 2);
    appendAttempts(attempts, record.attempts);
    row.json(attempts);
  }
  row.boolean(record.is_streaming);
  row.number(static_cast<int64_t>(interrupted ? interrupted->status : record.status));
  if (interrupted) {
    row.text(interrupted->outcome);
    row.text(interrupted->error_key);
    row.text(interrupted->error_message);
  } else {
    row.text(record.outcome.empty() ? outcome::kInternalError : std::string_view(record.outcome));
    row.text(record.error_key);
    row.text(record.error_message);
  }
  row.number(record.usage.input_tokens);
  row.number(record.usage.output_tokens);
  row.number(record.usage.cache_read_tokens);
  row.number(record.usage.cache_write_tokens);
  row.number(record.usage.reasoning_tokens);
  row.number(record.cost_microdollars);
  row.number(record.cache_savings_microdollars);
  row.number(record.latency_ms);
  row.number(record.ttfb_ms);
  row.number(record.upstream_ms);
  row.boolean(record.aborted);
  row.boolean(record.probe);
  row.nullable(record.request_body);
  row.nullable(record.response_body);
  row.text(record.replica);
  if (record.masked.empty()) {
    row.text("");
  } else {
    std::string masked;
    appendMasked(masked, record.masked);
    row.json(masked);
  }
  row.text(record.unit);
  row.number(record.units);
  row.end();
}

enum class ColumnType { Text, Time, Json, Boolean, Number };

ColumnType columnType(std::string_view column) {
  if (column == "created_at" || column == "completed_at") return ColumnType::Time;
  if (column == "attempts" || column == "masked") return ColumnType::Json;
  if (column == "is_streaming" || column == "aborted" || column == "probe") return ColumnType::Boolean;
  static constexpr std::string_view kNumbers[] = {
      "status",           "input_tokens", "output_tokens",  "cache_read_tokens", "cache_write_tokens",
      "reasoning_tokens", "cost_microdollars", "cache_savings_microdollars", "latency_ms", "ttfb_ms",
      "upstream_ms",      "units"};
  for (const auto number : kNumbers) {
    if (column == number) return ColumnType::Number;
  }
  return ColumnType::Text;
}

// One field of a COPY text line with its escapes undone.
std::string unescapeCopyField(std::string_view field) {
  std::string value;
  value.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      value += field[i];
      continue;
    }
    switch (field[++i]) {
      case 't': value += '\t'; break;
      case 'n': value += '\n'; break;
      case 'r': value += '\r'; break;
      case 'b': value += '\b'; break;
      case 'f': value += '\f'; break;
      case 'v': value += '\v'; break;
      default: value += field[i]; break;
    }
  }
  return value;
}

std::vector<std::string_view> copyFields(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return fields;
}

}  // namespace

std::string toCopyLine(const Record& record) {
  std::string out;
  appendCopyLine(out, record, nullptr);
  return out;
}

void appendInterruptedCopyLine(std::string& out, const Record& so_far) {
  static const Interruption kInterruption;
  appendCopyLine(out, so_far, &kInterruption);
}

std::string copyLineToRowJson(std::string_view line) {
  const std::vector<std::string_view> fields = copyFields(line);
  if (fields.size() != store::kAuditColumns.size()) {
    throw std::invalid_argument("an audit COPY line has " + std::to_string(fields.size()) + " fields, not " +
                                std::to_string(store::kAuditColumns.size()));
  }
  std::string out;
  out.reserve(line.size() + 512);
  RowWriter row(out);
  row.open();
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string_view column = store::kAuditColumns[i];
    row.name(column);
    if (fields[i] == "\\N") {
      out += "null";
      continue;
    }
    const std::string value = unescapeCopyField(fields[i]);
    switch (columnType(column)) {
      case ColumnType::Text:
      case ColumnType::Time: log::appendJsonString(out, value); break;
      case ColumnType::Json:
        if (!nlohmann::json::accept(value)) throw std::invalid_argument("an audit COPY line's " + std::string(column) + " is not JSON");
        out += value;
        break;
      case ColumnType::Boolean:
        if (value != "t" && value != "f") throw std::invalid_argument("an audit COPY line's " + std::string(column) + " is not t or f");
        out += value == "t" ? "true" : "false";
        break;
      case ColumnType::Number: {
        int64_t number = 0;
        const auto parsed = std::from_chars(value.data(), value.data() + value.size(), number);
        if (value.empty() || parsed.ec != std::errc() || parsed.ptr != value.data() + value.size()) {
          throw std::invalid_argument("an audit COPY line's " + std::string(column) + " is not a number");
        }
        out += value;
        break;
      }
    }
  }
  row.close();
  return out;
}

std::string copyLineId(std::string_view line) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos || tab == 0) return {};
  const std::string_view field = line.substr(0, tab);
  return field == "\\N" ? std::string() : unescapeCopyField(field);
}

store::RollupFacts rollupFacts(const Record& record) {
  store::RollupFacts facts;
  facts.created_at = record.created_at;
  facts.probe = record.probe;
  facts.failed = !(record.outcome == outcome::kOk);
  facts.user_name = record.user;
  facts.project = record.project;
  facts.model = record.model;
  facts.provider = record.served_provider;
  facts.route_id = record.route_id;
  facts.endpoint = record.served_endpoint;
  facts.measures = {record.usage.input_tokens,       record.usage.output_tokens,    record.usage.cache_read_tokens,
                    record.usage.cache_write_tokens, record.usage.reasoning_tokens, record.cost_microdollars,
                    record.cache_savings_microdollars};
  return facts;
}

}  // namespace sluice::audit
