#pragma once
// A row waiting in the writer's queue: its JSON (the spool's and the journal's form) and, for rows
// this process made, its COPY line and rollup facts for the live path. Rows recovered from a
// journal or read back from the spool have only their JSON: they may already be in PostgreSQL, so
// they take the insert that skips rows already present. A plain value.

#include <string>
#include <utility>

#include "server/audit/record_json.h"
#include "server/store/audit_store.h"

namespace sluice::audit {

struct QueuedRow {
  std::string json;  // empty: a live row, known by its COPY line alone (rowJson() derives it)
  std::string copy;  // empty: JSON only
  store::RollupFacts facts;
};

// The row as JSON. Throws std::invalid_argument for a COPY line that is not one (copyLineToRowJson).
inline std::string rowJson(const QueuedRow& row) { return row.json.empty() ? copyLineToRowJson(row.copy) : row.json; }
inline std::string rowJson(QueuedRow&& row) {
  return row.json.empty() ? copyLineToRowJson(row.copy) : std::move(row.json);
}

}  // namespace sluice::audit
