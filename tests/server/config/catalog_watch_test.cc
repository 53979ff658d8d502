#define BOOST_TEST_MODULE config_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "server/config/catalog_watch.h"
#include "tests/support/wait_until.h"

using namespace std::chrono;
using sluice::config::CatalogWatch;
using sluice::test::waitUntil;
namespace fs = std::filesystem;

namespace {

struct ServicesDir {
  fs::path path = fs::temp_directory_path() / ("sluice-watch-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(steady_clock::now().time_since_epoch().count()));
  ServicesDir() {
    fs::create_directories(path / "ai");
    write("ai/models.yaml", "models: []\n");
  }
  ~ServicesDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  void write(const std::string& relative, const std::string& text) const { std::ofstream(path / relative) << text; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(catalog_watch)

BOOST_AUTO_TEST_CASE(the_fingerprint_names_every_file_with_its_size) {
  ServicesDir dir;
  dir.write("ai/gateway.yaml", "gateway: {}\n");
  const std::string print = CatalogWatch::fingerprint(dir.path.string());
  BOOST_TEST(print.find("ai/models.yaml 11 ") != std::string::npos, print);
  BOOST_TEST(print.find("ai/gateway.yaml 12 ") != std::string::npos, print);
  dir.write("ai/gateway.yaml", "gateway: {} \n");
  BOOST_TEST(CatalogWatch::fingerprint(dir.path.string()) != print);
}

BOOST_AUTO_TEST_CASE(a_change_is_reported_once_after_it_settles) {
  ServicesDir dir;
  std::atomic<int> calls{0};
  CatalogWatch watch(dir.path.string(), milliseconds(20), [&] { ++calls; });
  watch.start();
  // Nothing may happen here, so there is no condition to wait for: three quiet intervals without
  // a change, no call. (The watch's first look, its baseline, is taken in this time too.)
  std::this_thread::sleep_for(milliseconds(60));
  BOOST_TEST(calls.load() == 0);
  dir.write("ai/models.yaml", "models: [a]\n");
  waitUntil([&] { return calls.load() >= 1; }, seconds(5), "the watch to report the change");
  // Again nothing may happen: five more intervals, and the settled change is not reported twice.
  std::this_thread::sleep_for(milliseconds(100));
  BOOST_TEST(calls.load() == 1);
  watch.stop();
}

// The gateway fingerprints its files before loading them; what changes after that, even before
// the watch thread first looks, is reloaded.
BOOST_AUTO_TEST_CASE(a_change_made_while_booting_is_reported) {
  ServicesDir dir;
  std::string baseline = CatalogWatch::fingerprint(dir.path.string());
  dir.write("ai/models.yaml", "models: [b]\n");
  std::atomic<int> calls{0};
  CatalogWatch watch(dir.path.string(), milliseconds(20), [&] { ++calls; });
  watch.start(std::move(baseline));
  waitUntil([&] { return calls.load() >= 1; }, seconds(5), "the watch to report the change made before it started");
  watch.stop();
}

BOOST_AUTO_TEST_CASE(stop_returns_promptly_with_a_long_interval) {
  ServicesDir dir;
  CatalogWatch watch(dir.path.string(), seconds(60), [] {});
  watch.start();
  const auto started = steady_clock::now();
  watch.stop();
  BOOST_TEST((steady_clock::now() - started < seconds(2)));
}

BOOST_AUTO_TEST_SUITE_END()
