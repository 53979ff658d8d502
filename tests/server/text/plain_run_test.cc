#include <boost/test/unit_test.hpp>

#include <random>
#include <string>

#include "server/text/plain_run.h"

using namespace sluice::text;

namespace {

// The byte-at-a-time answers the word-at-a-time scans must give.
size_t naiveJson(std::string_view value, size_t from) {
  for (size_t i = from; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return i;
  }
  return value.size();
}

size_t naiveCopy(std::string_view value, size_t from) {
  for (size_t i = from; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x0e || c == '\\' || c >= 0x80) return i;
  }
  return value.size();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plain_run)

BOOST_AUTO_TEST_CASE(each_special_byte_stops_the_run_wherever_it_sits_in_a_word) {
  for (const char special : {'"', '\\', '\t', '\n', '\r', '\0', '\x1f', '\x80', '\xff'}) {
    for (size_t at = 0; at < 20; ++at) {
      std::string value(20, 'a');
      value[at] = special;
      BOOST_TEST(plainJsonRun(value, 0) == at);
      const bool copy_special = special != '"' && special != '\x1f';
      BOOST_TEST(plainCopyRun(value, 0) == (copy_special ? at : value.size()));
    }
  }
  BOOST_TEST(plainJsonRun("", 0) == 0u);
  BOOST_TEST(plainJsonRun("plain text, no escapes at all!", 3) == 30u);
  BOOST_TEST(plainCopyRun("a\"b", 0) == 3u);  // a quote is plain in COPY text
}

BOOST_AUTO_TEST_CASE(random_bytes_scan_as_byte_by_byte) {
  std::mt19937 random(42);
  for (int round = 0; round < 20000; ++round) {
    std::string value(random() % 40, ' ');
    for (auto& c : value) {
      // Mostly printable ASCII, sometimes anything: the runs end at every kind of byte.
      c = random() % 8 == 0 ? static_cast<char>(random() % 256) : static_cast<char>(0x20 + random() % 95);
    }
    const size_t from = value.empty() ? 0 : random() % (value.size() + 1);
    BOOST_TEST_REQUIRE(plainJsonRun(value, from) == naiveJson(value, from));
    BOOST_TEST_REQUIRE(plainCopyRun(value, from) == naiveCopy(value, from));
  }
}

BOOST_AUTO_TEST_SUITE_END()
