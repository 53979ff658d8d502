#include "tests/server/audit/audit_test_support.h"

#include <unistd.h>

#include <atomic>
#include <thread>

namespace sluice::test {

ScratchDatabase& auditDatabase() {
  static ScratchDatabase instance(true);
  return instance;
}

void truncateAudit() {
  auto connection = auditDatabase().connect();
  pqxx::nontransaction query(*connection);
  query.exec("TRUNCATE ai_requests, ai_usage_hourly, ai_usage_daily, ai_route_usage_hourly, ai_route_usage_daily");
}

long long auditRows() { return std::stoll(auditDatabase().scalar("SELECT count(*) FROM ai_requests")); }

long long distinctAuditIds() {
  return std::stoll(auditDatabase().scalar("SELECT count(DISTINCT id) FROM ai_requests"));
}

audit::Record sampleRecord(const std::string& id) {
  audit::Record record;
  record.id = id;
  record.created_at = audit::Clock::now();
  record.completed_at = record.created_at + std::chrono::milliseconds(120);
  record.user = "alice";
  record.api_key_id = "key_1";
  record.project = "research";
  record.project_source = "key";
  record.client_wire = "anthropic";
  record.requested_model = "sonnet";
  record.model = "claude-sonnet-4";
  record.route_id = "claude-sonnet-4";
  record.served_provider = "anthropic";
  record.attempts.push_back({"anthropic-us", "anthropic", 200, "ok", "", 100});
  record.status = 200;
  record.outcome = "ok";
  record.usage.input_tokens = 100;
  record.usage.output_tokens = 20;
  record.cost_microdollars = 600;
  record.latency_ms = 120;
  return record;
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path = std::filesystem::temp_directory_path() /
         ("sluice-audit-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace sluice::test
