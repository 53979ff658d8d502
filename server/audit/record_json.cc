#include "server/audit/record_json.h"

#include <stdexcept>
#include <string_view>
#include <vector>

#include "server/audit/copy_text.h"
#include "server/audit/fields.h"

namespace sluice::audit {

namespace {

size_t bodyBytes(const Record& record) {
  return (record.request_body ? record.request_body->size() : 0) +
         (record.response_body ? record.response_body->size() : 0);
}

void appendKey(std::string& out, std::string_view name) {
  out += '"';
  out += name;  // column names: plain ASCII
  out += "\":";
}

// Written straight into the string, field by field: this runs on the request's thread for every
// request (an nlohmann::json built first cost a fifth of a passthrough request's CPU).
void appendCopyLine(std::string& out, const RowSource& source) {
  out.reserve(out.size() + 640 + bodyBytes(source.record));
  std::string scratch;
  bool first = true;
  for (const Field& field : fields()) {
    if (!first) out += '\t';
    first = false;
    appendCopyValue(out, field.kind, field.value(source, scratch));
  }
  out += '\n';
}

}  // namespace

std::string toRowJson(const Record& record) {
  std::string out;
  out.reserve(1024 + bodyBytes(record));
  const RowSource source{record};
  std::string scratch;
  out += '{';
  for (const Field& field : fields()) {
    if (out.size() > 1) out += ',';
    appendKey(out, field.column.name);
    appendJsonValue(out, field.kind, field.value(source, scratch));
  }
  out += '}';
  return out;
}

std::string toCopyLine(const Record& record) {
  std::string out;
  appendCopyLine(out, RowSource{record});
  return out;
}

void appendInterruptedCopyLine(std::string& out, const Record& so_far) {
  appendCopyLine(out, RowSource{so_far, true});
}

std::string copyLineToRowJson(std::string_view line) {
  const std::vector<std::string_view> values = splitCopyLine(line);
  const std::span<const Field> table = fields();
  if (values.size() > table.size() || values.size() < kOldestCopyFields) {
    throw std::invalid_argument("an audit COPY line has " + std::to_string(values.size()) + " fields, not " +
                                std::to_string(kOldestCopyFields) + " to " + std::to_string(table.size()));
  }
  std::string out;
  out.reserve(line.size() + 512);
  out += '{';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    appendKey(out, table[i].column.name);
    appendJsonFromCopy(out, table[i].kind, values[i], table[i].column.name);
  }
  out += '}';
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

std::string rowJsonOfLine(std::string_view line) {
  if (line.starts_with('{')) return std::string(line);
  return copyLineToRowJson(line);
}

}  // namespace sluice::audit
