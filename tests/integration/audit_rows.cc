#include "tests/integration/audit_rows.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "tests/support/test_env.h"

namespace sluice::test {

std::string testDatabaseUrl() {
  const char* url = std::getenv("SLUICE_TEST_DATABASE_URL");
  BOOST_REQUIRE_MESSAGE(url != nullptr && *url != '\0',
                        "SLUICE_TEST_DATABASE_URL is not set: this test needs PostgreSQL (scripts/test.sh sets it)");
  return url;
}

std::string capture(const std::string& command, int* code) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

nlohmann::json auditRow(const std::string& database_url, const std::string& id) {
  const std::string command =
      binPath("sluicectl") + " --database-url '" + database_url + "' --json audit " + id + " 2>/dev/null";
  for (int round = 0; round < 50; ++round) {
    int code = -1;
    const std::string out = capture(command, &code);
    if (code == 0) return nlohmann::json::parse(out);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return nlohmann::json();
}

std::string attemptResultsOf(const nlohmann::json& row) {
  std::string out;
  for (const auto& attempt : row["attempts"]) {
    if (!out.empty()) out += ",";
    out += attempt["endpoint"].get<std::string>() + "=" + attempt["result"].get<std::string>();
  }
  return out;
}

}  // namespace sluice::test
