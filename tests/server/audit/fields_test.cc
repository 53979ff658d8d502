#include "server/audit/fields.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <pqxx/pqxx>

#include "server/audit/record_json.h"
#include "tests/server/audit/audit_test_support.h"

using namespace sluice;

namespace {

struct TableColumn {
  std::string type;
  bool nullable = true;
  std::string default_value;  // "" when none
};

// ai_requests as the migrations left it in the module's scratch database (which fails the test
// when SLUICE_TEST_DATABASE_URL is unset).
std::map<std::string, TableColumn> tableColumns() {
  auto connection = test::auditDatabase().connect();
  pqxx::nontransaction query(*connection);
  std::map<std::string, TableColumn> columns;
  for (const auto& row : query.exec(
           "SELECT column_name, data_type, is_nullable = 'YES', coalesce(column_default, '') "
           "FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'ai_requests'")) {
    columns[row[0].as<std::string>()] = {row[1].as<std::string>(), row[2].as<bool>(), row[3].as<std::string>()};
  }
  return columns;
}

audit::Record everyFieldSet() {
  audit::Record record;
  record.id = "golden";
  record.created_at = audit::TimePoint(std::chrono::seconds(1'700'000'000));
  record.completed_at = record.created_at + std::chrono::milliseconds(1234);
  record.user = "u";
  record.api_key_id = "k";
  record.project = "p";
  record.project_source = "key";
  record.client_family = "curl";
  record.client_wire = "openai-chat";
  record.requested_model = "rm";
  record.model = "m";
  record.route_id = "r";
  record.strategy = "ordered";
  record.provider = "pv";
  record.endpoint = "ep";
  record.served_provider = "spv";
  record.served_endpoint = "sep";
  record.route_match = "route:r";
  record.attempts.push_back({"ep", "pv", 503, "status_503", "busy", 7});
  record.is_streaming = true;
  record.status = 200;
  record.outcome = "ok";
  record.usage = {1, 2, 3, 4, 5};
  record.cost_microdollars = 6;
  record.cache_savings_microdollars = 7;
  record.latency_ms = 8;
  record.ttfb_ms = 9;
  record.probe = true;
  record.request_body = "{}";
  record.replica = "r1";
  record.masked = {{"email", 2}};
  record.unit = "images";
  record.units = 3;
  record.client_address = "198.51.100.23";
  record.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  record.span_id = "00f067aa0ba902b7";
  return record;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fields)

BOOST_AUTO_TEST_CASE(every_field_is_a_column_of_the_migrated_table_with_its_type_and_default) {
  const std::map<std::string, TableColumn> table = tableColumns();
  BOOST_REQUIRE_MESSAGE(!table.empty(), "ai_requests has no columns after the migrations");
  std::set<std::string> named;
  for (const audit::Field& field : audit::fields()) {
    const std::string name(field.column.name);
    BOOST_TEST(named.insert(name).second, "field named twice: " << name);
    const auto column = table.find(name);
    if (column == table.end()) {
      BOOST_ERROR("field " << name << " is no column of ai_requests");
      continue;
    }
    BOOST_TEST(field.column.type == column->second.type, name);
    // A NOT NULL column with a default: a row object without the key takes that default. A
    // nullable one, or one a row must carry (no default): NULL.
    const std::string expected_fallback = column->second.nullable ? "" : column->second.default_value;
    BOOST_TEST(field.column.fallback == expected_fallback, name);
  }
  for (const auto& [name, column] : table) {
    BOOST_TEST(named.contains(name), "column " << name << " of ai_requests has no field: the gateway never writes it");
  }
}

BOOST_AUTO_TEST_CASE(the_columns_given_to_the_store_are_the_fields_in_copy_order) {
  const auto columns = audit::auditColumns();
  BOOST_REQUIRE(columns.size() == audit::fields().size());
  for (size_t i = 0; i < columns.size(); ++i) BOOST_TEST(columns[i].name == audit::fields()[i].column.name);
}

// Journals and spools on disk keep rows in this form: a new version must read what an older one
// wrote, so the order and spelling of the COPY text never change (new columns go at the end).
BOOST_AUTO_TEST_CASE(a_copy_line_keeps_the_order_and_spelling_earlier_versions_wrote) {
  const std::vector<std::string> expected = {
      "golden", "2023-11-14T22:13:20.000000Z", "2023-11-14T22:13:21.234000Z", "u", "k", "p", "key", "curl",
      "openai-chat", "rm", "m", "r", "ordered", "pv", "ep", "spv", "sep", "route:r",
      R"([{"endpoint":"ep","provider":"pv","status":503,"result":"status_503","duration_ms":7,"error":"busy"}])",
      "t", "200", "ok", "\\N", "\\N", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\\N", "f", "t", "{}", "\\N", "r1",
      R"({"email":2})", "images", "3", "198.51.100.23", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"};
  std::string line;
  for (const auto& field : expected) line += (line.empty() ? "" : "\t") + field;
  line += '\n';
  BOOST_TEST(audit::toCopyLine(everyFieldSet()) == line);
}

BOOST_AUTO_TEST_CASE(a_copy_line_turns_into_the_json_row_byte_for_byte) {
  const audit::Record record = everyFieldSet();
  BOOST_TEST(audit::copyLineToRowJson(audit::toCopyLine(record)) == audit::toRowJson(record));
  const audit::Record bare = test::sampleRecord("bare");
  BOOST_TEST(audit::copyLineToRowJson(audit::toCopyLine(bare)) == audit::toRowJson(bare));
}

BOOST_AUTO_TEST_CASE(a_field_that_is_not_its_kind_is_refused_naming_the_column) {
  std::string out;
  BOOST_CHECK_EXCEPTION(audit::appendJsonFromCopy(out, audit::FieldKind::Integer, "1x", "units"), std::invalid_argument,
                        [](const std::invalid_argument& error) { return std::string(error.what()).find("units") != std::string::npos; });
  BOOST_CHECK_THROW(audit::appendJsonFromCopy(out, audit::FieldKind::Boolean, "true", "probe"), std::invalid_argument);
  BOOST_CHECK_THROW(audit::appendJsonFromCopy(out, audit::FieldKind::Json, "{", "masked"), std::invalid_argument);
  out.clear();
  audit::appendJsonFromCopy(out, audit::FieldKind::Text, "\\N", "unit");
  BOOST_TEST(out == "null");
}

BOOST_AUTO_TEST_SUITE_END()
