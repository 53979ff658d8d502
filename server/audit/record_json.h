#pragma once
// A Record as one line of JSON keyed by `ai_requests` column names: what the spool and the journal
// keep on disk, byte for byte, and what a replay sends to PostgreSQL (json_populate_recordset).
// The same Record as one line of COPY text: what the writer streams into PostgreSQL on the live
// path (COPY ... FROM STDIN is parsed several times faster than JSON there). Both are made from
// the one field table (fields.h): its columns, its order, its spellings.

#include <string>
#include <string_view>

#include "server/audit/record.h"
#include "server/store/audit_store.h"

namespace sluice::audit {

// One JSON object, no newline, keys in fields() order. Empty strings and unset times become null;
// NUL characters are removed and invalid UTF-8 is replaced (PostgreSQL text accepts neither).
// Never throws except std::bad_alloc.
std::string toRowJson(const Record& record);

// One line of PostgreSQL's COPY text format, columns in fields() order, ending in
// '\n'. The same values as toRowJson: empty strings and unset times are NULL (\N), NUL bytes
// are removed, invalid UTF-8 is replaced; backslash, tab, newline and carriage return are escaped.
// A NOT NULL column never gets \N (an unset outcome is internal_error, as in the JSON).
std::string toCopyLine(const Record& record);

// Appends to `out` the COPY line of the row a request leaves when its process dies before it
// ends: what it had so far, with outcome `interrupted`, status 500, error `replica_stopped` and
// completed_at = created_at. What the journal keeps for every request in flight.
void appendInterruptedCopyLine(std::string& out, const Record& so_far);

// The row of a toCopyLine() line as toRowJson() gives it (the same values, the same key order):
// how a row journaled as COPY text goes back to the JSON paths (a replay, the spool, a batch that
// COPY refused). A line an earlier version wrote (kOldestCopyFields or more fields, fewer than
// today's) gives the row without the newer columns, which take their defaults. Throws
// std::invalid_argument for a line that is not one (a torn journal line).
std::string copyLineToRowJson(std::string_view line);

// A JSON line as it is, a COPY line through copyLineToRowJson (what Writer's on_committed hands
// over). Throws std::invalid_argument as copyLineToRowJson does.
std::string rowJsonOfLine(std::string_view line);

// The fields of the oldest COPY line still read: what a journal of the release before
// client_address was added holds.
inline constexpr size_t kOldestCopyFields = 42;

// The id (first field) of a COPY line; empty when it has none.
std::string copyLineId(std::string_view line);

// What the row adds to the usage rollups (store::RollupFacts).
store::RollupFacts rollupFacts(const Record& record);

}  // namespace sluice::audit
