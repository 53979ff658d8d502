#include "server/audit/journal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "server/audit/record_json.h"
#include "tests/server/audit/audit_test_support.h"

using namespace sluice;

namespace {

std::string row(const std::string& id, const std::string& outcome = "ok") {
  return R"({"id":")" + id + R"(","outcome":")" + outcome + R"("})";
}

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(journal)

BOOST_AUTO_TEST_CASE(ended_rows_and_unended_begins_come_back_from_a_reopened_file) {
  test::TempDir dir;
  const std::string path = dir.file("audit.spool.journal");
  {
    audit::Journal journal(path);
    journal.appendBegin(row("a", "interrupted"));
    journal.appendBegin(row("b", "interrupted"));
    journal.appendEnd(row("a"));
    journal.appendBegin(row("b", "interrupted-later"));
    BOOST_TEST(journal.size() > 0u);
  }  // closed without a compaction, as a killed process leaves it
  // The file is kept at its mapped length; what follows the lines is zero bytes.
  BOOST_TEST(std::filesystem::file_size(path) == audit::Journal::kGrowth);
  audit::Journal reopened(path);
  const auto loaded = reopened.load();
  BOOST_TEST(loaded.ended.size() == 1u);
  BOOST_TEST(loaded.ended[0] == row("a"));
  BOOST_TEST(loaded.interrupted.size() == 1u);
  BOOST_TEST(loaded.interrupted[0] == row("b", "interrupted-later"));
  // Appending continues after the last line, not after the zeros.
  reopened.appendEnd(row("b"));
  BOOST_TEST(audit::Journal::parse(fileText(path).substr(0, reopened.size())).ended.size() == 2u);
  BOOST_TEST(reopened.load().interrupted.empty());
}

BOOST_AUTO_TEST_CASE(the_file_grows_past_its_first_mapping_and_keeps_every_line) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  const std::string padding(3000, 'x');
  size_t appended = 0;
  {
    audit::Journal journal(path);
    while (journal.size() < 2 * audit::Journal::kGrowth + 100) {
      journal.appendEnd(R"({"id":"r)" + std::to_string(appended++) + R"(","pad":")" + padding + R"("})");
    }
  }
  BOOST_TEST(std::filesystem::file_size(path) == 3 * audit::Journal::kGrowth);
  audit::Journal reopened(path);
  const auto loaded = reopened.load();
  BOOST_TEST(loaded.ended.size() == appended);
  BOOST_TEST(loaded.ended.back().find("\"r" + std::to_string(appended - 1) + "\"") != std::string::npos);
  // Compacted to little, it gives the space back.
  reopened.rewrite({audit::Journal::endLine(row("last"))});
  BOOST_TEST(std::filesystem::file_size(path) == audit::Journal::kGrowth);
  BOOST_TEST(reopened.load().ended.size() == 1u);
  audit::Journal third(path);
  BOOST_TEST(third.load().ended.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_rewrite_keeps_only_its_lines_and_appends_follow_them) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  audit::Journal journal(path);
  for (int i = 0; i < 100; ++i) journal.appendEnd(row("old-" + std::to_string(i)));
  journal.rewrite({audit::Journal::beginLine(row("open", "interrupted"))});
  journal.appendEnd(row("new"));
  const auto loaded = journal.load();
  BOOST_TEST(loaded.ended.size() == 1u);
  BOOST_TEST(loaded.ended[0] == row("new"));
  BOOST_TEST(loaded.interrupted.size() == 1u);
  BOOST_TEST(!std::filesystem::exists(path + ".new"));
}

BOOST_AUTO_TEST_CASE(a_file_of_plain_lines_and_a_torn_last_line_load) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  {
    std::ofstream out(path, std::ios::binary);
    out << audit::Journal::endLine(row("kept")) << R"({"r":{"id":"torn","outc)";
  }
  audit::Journal journal(path);
  const auto loaded = journal.load();
  BOOST_TEST(loaded.ended.size() == 1u);
  BOOST_TEST(loaded.ended[0] == row("kept"));
}

// Live requests are journaled as COPY text (begun, then ended); older journals hold JSON lines.
BOOST_AUTO_TEST_CASE(copy_lines_and_json_lines_load_alike) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  const audit::Record done = test::sampleRecord("copy-done");
  const audit::Record open = test::sampleRecord("copy-open");
  {
    audit::Journal journal(path);
    journal.appendEnd(row("json-done"));
    journal.appendBegin(row("json-open", "interrupted"));
    for (const audit::Record* record : {&done, &open}) {
      std::string begin(audit::Journal::kBeginCopy);
      audit::appendInterruptedCopyLine(begin, *record);
      journal.appendLine(begin);
    }
    journal.appendEndCopy(audit::toCopyLine(done));
    // A line torn by a compaction the process died in: skipped, the rest still loads.
    const std::string torn = audit::toCopyLine(test::sampleRecord("torn"));
    journal.appendLine(std::string(audit::Journal::kEndCopy) + torn.substr(0, torn.size() / 2) + "\n");
  }
  const auto loaded = audit::Journal(path).load();
  BOOST_TEST_REQUIRE(loaded.ended.size() == 2u);
  BOOST_TEST(loaded.ended[0] == row("json-done"));
  BOOST_TEST(nlohmann::json::parse(loaded.ended[1]) == nlohmann::json::parse(audit::toRowJson(done)));
  BOOST_TEST_REQUIRE(loaded.interrupted.size() == 2u);
  BOOST_TEST(loaded.interrupted[0] == row("json-open", "interrupted"));
  const auto interrupted = nlohmann::json::parse(loaded.interrupted[1]);
  BOOST_TEST(interrupted["id"] == "copy-open");
  BOOST_TEST(interrupted["outcome"] == "interrupted");
  BOOST_TEST(interrupted["error_key"] == "replica_stopped");
}

// SIGKILL leaves no chance to flush anything: the lines must already be in the page cache.
BOOST_AUTO_TEST_CASE(lines_appended_by_a_process_killed_with_sigkill_are_in_the_file) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  int ready[2];
  BOOST_REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    audit::Journal journal(path);
    for (int i = 0; i < 500; ++i) journal.appendEnd(row("killed-" + std::to_string(i)));
    journal.appendBegin(row("in-flight", "interrupted"));
    const char done = 1;
    (void)::write(ready[1], &done, 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char done = 0;
  BOOST_REQUIRE(::read(ready[0], &done, 1) == 1);
  ::close(ready[0]);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  BOOST_TEST(WIFSIGNALED(status));
  audit::Journal journal(path);
  const auto loaded = journal.load();
  BOOST_TEST(loaded.ended.size() == 500u);
  BOOST_TEST(loaded.interrupted.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
