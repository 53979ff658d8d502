#pragma once
// The audit row declared once: every column of `ai_requests` the gateway writes, in the order of
// its COPY lines, with its SQL type, its value in a Record and how that value is spelled in COPY
// text and in JSON. The COPY line, the JSON row, the COPY→JSON conversion (record_json.h) and the
// column list the store names in COPY and INSERT (store::AuditColumn) are all made from this one
// table; tests/server/audit/fields_test.cc holds it against the migrations.
//
// A new column: a migration, then one entry at the END of the table; never move or remove one
// (journals on disk keep COPY lines by position). Pure: no I/O, no state; thread-safe.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "server/audit/record.h"
#include "server/store/audit_store.h"

namespace sluice::audit {

// How a column's value is spelled. Every kind has a NULL: \N in COPY, null in JSON.
enum class FieldKind {
  Text,     // text: empty is NULL; NUL bytes removed, invalid UTF-8 replaced (PostgreSQL accepts neither)
  Time,     // timestamptz: the epoch is NULL; "YYYY-MM-DDTHH:MM:SS.uuuuuuZ"
  Integer,  // integer or bigint
  Boolean,  // boolean: t or f in COPY, true or false in JSON
  Json,     // jsonb: text already JSON (valid UTF-8, no NUL); only COPY's escapes apply
};

// One field's value in one row. `text` may point into the Record or into the caller's scratch
// string: valid while both live and are unchanged.
struct FieldValue {
  bool null = false;
  std::string_view text;  // Text, Json
  TimePoint time{};       // Time
  int64_t integer = 0;    // Integer; Boolean as 0 or 1
};

// What a row is made from: the record, and whether it is the row a request leaves when its
// process dies before it ends (outcome `interrupted`, status 500, error `replica_stopped`,
// completed_at = created_at; journal.h). The record itself is never changed.
struct RowSource {
  const Record& record;
  bool interrupted = false;
};

struct Field {
  store::AuditColumn column;  // name, SQL type, value for a JSON row object without the key
  FieldKind kind;
  // The field's value in the row of `source`; may build it in `scratch` (cleared by the callee).
  FieldValue (*value)(const RowSource& source, std::string& scratch);
};

// Every field, in COPY order.
std::span<const Field> fields();

// The same columns alone, in the same order: what the store's copyAuditRows and insertAuditRows
// are given.
std::span<const store::AuditColumn> auditColumns();

// Appends `value` as one COPY text field of `kind` (no tab, no newline).
void appendCopyValue(std::string& out, FieldKind kind, const FieldValue& value);

// Appends `value` as the JSON value of a field of `kind`.
void appendJsonValue(std::string& out, FieldKind kind, const FieldValue& value);

// Appends the JSON value of one COPY text field of `kind` (escapes still in, \N for NULL): the
// same JSON appendJsonValue gives for the value that appendCopyValue wrote. Throws
// std::invalid_argument naming `column` when the field is not one of that kind (a torn line).
void appendJsonFromCopy(std::string& out, FieldKind kind, std::string_view copy_field, std::string_view column);

}  // namespace sluice::audit
