#include "tests/integration/members.h"

#include <atomic>
#include <chrono>

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/support/test_env.h"

namespace sluice::test {

namespace {

std::string sluicectl(const std::string& args) {
  int code = -1;
  const std::string out = capture(binPath("sluicectl") + " --database-url '" + testDatabaseUrl() + "' --services '" +
                                      sourceDir() + "/services' " + args + " 2>&1",
                                  &code);
  BOOST_REQUIRE_MESSAGE(code == 0, out);
  return out;
}

}  // namespace

TestMember newMember(const std::string& base, const std::string& role, const std::string& flags) {
  static std::atomic<int> counter{0};
  TestMember member;
  member.name = base + "-" + std::to_string(::getpid()) + "-" +
                std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
                std::to_string(counter++);
  sluicectl("users add " + member.name + " --role " + role + (flags.empty() ? "" : " " + flags));
  std::string created = sluicectl("keys create " + member.name + " --name test");
  while (!created.empty() && created.back() == '\n') created.pop_back();
  member.key = created.substr(created.rfind('\n') == std::string::npos ? 0 : created.rfind('\n') + 1);
  BOOST_REQUIRE(member.key.starts_with("sk-sluice-"));
  return member;
}

}  // namespace sluice::test
