#pragma once
// A Record as one line of JSON keyed by `ai_requests` column names: what the writer sends to
// PostgreSQL (json_populate_recordset) and what the spool keeps on disk, byte for byte.

#include <string>

#include "server/audit/record.h"

namespace sluice::audit {

// One JSON object, no newline. Empty strings and unset times become null; NUL characters are
// removed and invalid UTF-8 is replaced (PostgreSQL text accepts neither). Never throws except
// std::bad_alloc.
std::string toRowJson(const Record& record);

}  // namespace sluice::audit
