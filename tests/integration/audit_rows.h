#pragma once
// Reading the audit trail the way an auditor does: `sluicectl --json audit <id>` against the real
// PostgreSQL the gateway under test writes to.

#include <string>

#include <nlohmann/json.hpp>

namespace sluice::test {

// SLUICE_TEST_DATABASE_URL; the test fails when it is unset (scripts/test.sh always sets it).
std::string testDatabaseUrl();

// The row for `id` as `sluicectl --json audit` prints it, polling (up to 5 s) while the
// background writer flushes; null when it never appears.
nlohmann::json auditRow(const std::string& database_url, const std::string& id);

// A row's attempts as "endpoint=result,…" in order (e.g. "bedrock/claude=status_429,backup/api=ok").
std::string attemptResultsOf(const nlohmann::json& row);

// Runs a shell command, returning its stdout and setting `code` to its exit status.
std::string capture(const std::string& command, int* code);

}  // namespace sluice::test
