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
#include "tests/support/small_volume.h"

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

// A full volume: the mapping is reserved before it is written, so the journal turns itself off
// (the process would otherwise die of SIGBUS writing into a page with no block behind it), keeps
// every line it had, and comes back once there is room.
BOOST_AUTO_TEST_CASE(a_full_volume_turns_the_journal_off_instead_of_killing_the_process) {
  test::SmallVolume volume(256u << 10);
  const std::string path = volume.file("audit.spool.journal");
  audit::Journal journal(path);
  BOOST_TEST_REQUIRE(journal.active());  // a whole kGrowth does not fit: the smaller step does
  journal.appendEnd(row("before-full"));
  volume.fill(4096);
  const std::string padding(900, 'p');
  int appended = 0;
  while (journal.active() && appended < 1000) {
    journal.appendEnd(R"({"id":"r)" + std::to_string(appended++) + R"(","pad":")" + padding + R"("})");
  }
  BOOST_TEST(!journal.active());
  BOOST_TEST(journal.timesTurnedOff() == 1u);
  BOOST_TEST(journal.offReason().find("No space left on device") != std::string::npos, journal.offReason());
  journal.appendEnd(row("while-off"));  // nothing happens, nothing faults
  // Every line written before it turned off is still there (the one that did not fit is not).
  auto loaded = journal.load();
  BOOST_TEST(loaded.ended.size() == static_cast<size_t>(appended));
  BOOST_TEST(loaded.ended.front() == row("before-full"));
  // Still full: a compaction cannot turn it on, and the file keeps its lines.
  BOOST_CHECK_THROW(journal.rewrite({audit::Journal::endLine(row("open"))}), std::system_error);
  BOOST_TEST(!journal.active());
  BOOST_TEST(journal.load().ended.size() == static_cast<size_t>(appended));
  volume.release();
  journal.rewrite({audit::Journal::endLine(row("open"))});
  BOOST_TEST(journal.active());
  journal.appendEnd(row("after"));
  loaded = audit::Journal(path).load();
  BOOST_TEST_REQUIRE(loaded.ended.size() == 2u);
  BOOST_TEST(loaded.ended[1] == row("after"));
}

// What an older build (or a disk that filled) left: lines up to a page boundary, then a hole in a
// file longer than its lines. Read with pread, the hole is zeros; through a mapping it would be a
// page to allocate on a full volume: SIGBUS before the gateway even listens.
BOOST_AUTO_TEST_CASE(a_journal_with_holes_on_a_full_volume_is_recovered_without_touching_them) {
  test::SmallVolume volume(256u << 10);
  const std::string path = volume.file("audit.spool.journal");
  std::string lines;
  int count = 0;
  while (true) {
    std::string line = audit::Journal::endLine(row("left-" + std::to_string(count)));
    if (lines.size() + line.size() > 4096) break;
    lines += line;
    ++count;
  }
  // Pad the last line so the lines end exactly at the page boundary.
  lines.insert(lines.size() - 2, std::string(4096 - lines.size(), ' '));
  BOOST_TEST_REQUIRE(lines.size() == 4096u);
  {
    std::ofstream out(path, std::ios::binary);
    out << lines;
  }
  std::filesystem::resize_file(path, audit::Journal::kGrowth);  // sparse: one page of data
  volume.fill(0);
  audit::Journal journal(path);
  BOOST_TEST(!journal.active());  // no room to reserve its mapping
  const auto loaded = journal.load();
  BOOST_TEST(loaded.ended.size() == static_cast<size_t>(count));
  journal.appendBegin(row("new", "interrupted"));  // off: ignored, no fault
  BOOST_TEST(journal.load().interrupted.empty());
}

BOOST_AUTO_TEST_SUITE_END()
