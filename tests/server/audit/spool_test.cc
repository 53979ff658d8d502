#include "server/audit/spool.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <boost/test/unit_test.hpp>

using namespace sluice;

namespace {

struct TempDir {
  TempDir()
      : path(std::filesystem::temp_directory_path() /
             ("sluice-spool-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  static inline int counter = 0;
  std::filesystem::path path;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spool)

BOOST_AUTO_TEST_CASE(reads_back_lines_in_order_in_chunks) {
  TempDir dir;
  auto spool = audit::Spool::open(dir.file("audit.spool"));
  spool->append("{\"a\":1}\n{\"a\":2}\n");
  spool->append("{\"a\":3}\n");
  BOOST_TEST(spool->size() == 24u);
  auto chunk = spool->read(0, 2);
  BOOST_TEST(chunk.lines == (std::vector<std::string>{"{\"a\":1}", "{\"a\":2}"}), boost::test_tools::per_element());
  chunk = spool->read(chunk.next_offset, 10);
  BOOST_TEST(chunk.lines == std::vector<std::string>{"{\"a\":3}"}, boost::test_tools::per_element());
  BOOST_TEST(chunk.next_offset == 24u);
  BOOST_TEST(spool->read(24, 10).lines.empty());
}

BOOST_AUTO_TEST_CASE(discarding_a_prefix_keeps_rows_appended_after_it) {
  TempDir dir;
  auto spool = audit::Spool::open(dir.file("audit.spool"));
  spool->append("one\ntwo\n");
  const auto chunk = spool->read(0, 10);
  spool->append("three\n");  // arrives while "one" and "two" are being replayed
  spool->discardPrefix(chunk.next_offset);
  BOOST_TEST(slurp(dir.file("audit.spool")) == "three\n");
  spool->append("four\n");
  BOOST_TEST(slurp(dir.file("audit.spool")) == "three\nfour\n");
  spool->discardPrefix(spool->size());
  BOOST_TEST(spool->size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_torn_last_line_from_a_crash_is_dropped_at_open) {
  TempDir dir;
  std::ofstream(dir.file("audit.spool")) << "{\"a\":1}\n{\"a\":2}\n{\"a\":";
  auto spool = audit::Spool::open(dir.file("audit.spool"));
  BOOST_TEST(spool->read(0, 10).lines.size() == 2u);
  spool->append("{\"a\":3}\n");
  BOOST_TEST(slurp(dir.file("audit.spool")) == "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
}

BOOST_AUTO_TEST_CASE(a_second_owner_gets_the_next_free_name_and_orphans_are_adopted) {
  TempDir dir;
  const std::string base = dir.file("audit.spool");
  auto first = audit::Spool::open(base);
  auto second = audit::Spool::open(base);
  BOOST_TEST(first->path() == base);
  BOOST_TEST(second->path() == base + ".1");
  std::ofstream(base + ".2") << "orphan-1\norphan-2\n";
  // The first owner is alive, so its file is not adopted; .2 has no owner.
  BOOST_TEST(second->adoptOrphans() == 2u);
  BOOST_TEST(!std::filesystem::exists(base + ".2"));
  BOOST_TEST(second->read(0, 10).lines.size() == 2u);
  first->append("mine\n");
  first.reset();  // its owner exits: now it is an orphan too
  BOOST_TEST(second->adoptOrphans() == 1u);
  BOOST_TEST(second->read(0, 10).lines.back() == "mine");
}

BOOST_AUTO_TEST_CASE(an_unopenable_path_is_reported) {
  BOOST_CHECK_THROW(audit::Spool::open("/proc/sluice-no-such-dir/audit.spool"), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
