#pragma once
// Shared by the audit tests: the module's scratch database and small helpers.

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "server/audit/record.h"
#include "tests/server/store/scratch_database.h"

namespace sluice::test {

// One scratch database for the whole test module (migrated), dropped at exit.
ScratchDatabase& auditDatabase();
// Empties ai_requests and the usage rollups.
void truncateAudit();
// count(*) of ai_requests, and of distinct ids.
long long auditRows();
long long distinctAuditIds();

// A filled-in record with this id, created now.
audit::Record sampleRecord(const std::string& id);

// A fresh directory under /tmp, removed when destroyed.
struct TempDir {
  TempDir();
  ~TempDir();
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::filesystem::path path;
};

// Polls `condition` every 20 ms until it holds (true) or `timeout` passes (false).
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace sluice::test
