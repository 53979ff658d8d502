#pragma once
// Runs the real sluicectl binary (tests/cli): its exit code and what it printed.

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/support/child_process.h"
#include "tests/support/test_env.h"

namespace sluice::test {

struct SluicectlRun {
  int code = -1;
  std::string out;
  std::string err;
};

inline SluicectlRun runSluicectl(std::vector<std::string> args,
                                 std::vector<std::pair<std::string, std::string>> env = {}) {
  ChildProcess child({.binary = binPath("sluicectl"),
                      .args = std::move(args),
                      .env = std::move(env),
                      .unset_env = {"SLUICE_DATABASE_URL"},
                      .wait_for_listening = false});
  const auto code = child.waitForExit(std::chrono::seconds(60));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "sluicectl did not exit");
  // Let the reader thread drain what is left in the pipes.
  for (int i = 0; i < 50 && child.stdoutText().empty() && child.stderrText().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {*code, child.stdoutText(), child.stderrText()};
}

// Runs of spaces as one, so checks do not depend on column widths.
inline std::string squeeze(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

}  // namespace sluice::test
