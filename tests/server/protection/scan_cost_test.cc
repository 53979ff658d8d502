// What scanning costs on hostile text: every shape a client can repeat (one trigger over and over)
// costs time linear in its length, a request's scan stops at its budget in bytes and in time, and
// the stream restorer's cost does not grow with the blocks a provider opens. Times are the test
// thread's CPU time (a loaded machine slows the wall clock, not the work), compared with prose of
// the same size so a slow build (sanitizers) moves both.

#include <boost/test/unit_test.hpp>

#include <time.h>

#include <chrono>
#include <string>
#include <vector>

#include "server/protection/masker.h"
#include "server/protection/placeholder.h"
#include "server/protection/restorer.h"

namespace sluice::protection {
namespace {

const Detector& all() {
  static const Detector d =
      *Detector::create({Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey, Kind::Jwt,
                         Kind::PrivateKey, Kind::Password, Kind::UrlCredentials, Kind::IpAddress},
                        {"Acme Rocket Corp"});
  return d;
}

double cpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::string repeated(std::string_view unit, size_t bytes) {
  std::string out;
  out.reserve(bytes + unit.size());
  while (out.size() < bytes) out += unit;
  return out;
}

wire::Request requestOf(std::string text) {
  wire::Request request;
  wire::Message message;
  message.content.push_back(wire::ContentBlock::ofText(std::move(text)));
  request.messages.push_back(std::move(message));
  return request;
}

// CPU seconds to mask `text` as one message (the best of two runs: the first may page memory in).
double maskSeconds(const std::string& text, const MaskLimits& limits = {}) {
  double best = 1e9;
  for (int run = 0; run < 2; ++run) {
    wire::Request request = requestOf(text);
    const double started = cpuSeconds();
    (void)maskRequest(request, all(), limits);
    best = std::min(best, cpuSeconds() - started);
  }
  return best;
}

constexpr size_t kBytes = 1u << 20;

// A shape may cost this many times what prose of the same size costs, and no more. Linear
// scanners land within a few times prose; a window searched per trigger lands hundreds of times
// above it (the BEGIN lines took 5 s per MiB).
constexpr double kMaxTimesProse = 25;

double proseSeconds() {
  static const double seconds =
      maskSeconds(repeated("The quick brown fox jumps over the lazy dog near the river bank. ", kBytes));
  return std::max(seconds, 0.002);
}

BOOST_AUTO_TEST_SUITE(scan_cost)

BOOST_AUTO_TEST_CASE(text_made_of_one_trigger_repeated_scans_in_linear_time) {
  const std::vector<std::string> units = {
      "-----BEGIN PRIVATE KEY-----!",  // a BEGIN line without END, each looked 64 KiB ahead
      "-----BEGIN RSA PRIVATE KEY-----\n-----END ",
      "a@",          // each '@' looked 512 bytes back for "://"
      "x.y@a.",      //
      "password=",   // each '=' read the value to its end again
      "password:",   //
      "secret=a&",   //
      "::1:", "1:", "+1 ", "(1) ", "4111 ", "DE89 ", "sk-", "eyJ.", "u:p@", "ftp://a:b@",
  };
  for (const std::string& unit : units) {
    const double seconds = maskSeconds(repeated(unit, kBytes));
    BOOST_TEST_MESSAGE("'" << unit << "' x 1 MiB: " << seconds * 1e3 << " ms (prose " << proseSeconds() * 1e3 << " ms)");
    BOOST_TEST(seconds < kMaxTimesProse * proseSeconds(),
               "'" << unit << "' repeated to 1 MiB: " << seconds << " s, prose " << proseSeconds() << " s");
  }
}

BOOST_AUTO_TEST_CASE(a_far_end_line_is_searched_once_not_once_per_begin_line) {
  // Every BEGIN line finds the same END line 64 KiB on, then looks for its closing dashes.
  const std::string text = repeated("-----BEGIN PRIVATE KEY-----!", 60 * 1024) + "-----END " +
                           repeated("x", kBytes - 60 * 1024);
  BOOST_TEST(maskSeconds(text) < kMaxTimesProse * proseSeconds());
  // A value followed by a long run of spaces, asked for by every ':' before it.
  const std::string spaces = repeated("password:", kBytes / 2) + "x" + repeated(" ", kBytes / 2);
  BOOST_TEST(maskSeconds(spaces) < kMaxTimesProse * proseSeconds());
}

BOOST_AUTO_TEST_CASE(values_of_many_lengths_are_found_again_in_linear_time) {
  // 600 passwords of distinct lengths sharing their first bytes, then runs of those bytes shorter
  // than most of them: every position starts a prefix of every value.
  std::string text;
  for (int length = 4; length < 604; ++length) text += "password=" + repeated("-.", length).substr(0, length) + " \n";
  text += repeated(repeated("-.", 150) + "|", kBytes);
  wire::Request request = requestOf(text);
  const double started = cpuSeconds();
  const auto result = maskRequest(request, all());
  const double seconds = cpuSeconds() - started;
  BOOST_TEST_REQUIRE(result.has_value(), (result ? "" : result.error().reason));
  BOOST_TEST(seconds < kMaxTimesProse * proseSeconds(), seconds << " s");
  // And they were found again: each run is the value of its length.
  BOOST_TEST(result->counts.at(Kind::Password) > 600 + 1000);
}

BOOST_AUTO_TEST_CASE(a_request_past_its_scan_time_fails_closed) {
  // A fake clock that moves 1 ms each time it is read: the budget is checked per 64 KiB.
  auto now = std::make_shared<std::chrono::nanoseconds>(0);
  MaskLimits limits;
  limits.max_scan_time = std::chrono::milliseconds(10);
  limits.clock = [now] { return *now += std::chrono::milliseconds(1); };
  wire::Request request = requestOf(repeated("Mail ann@example.com about the invoice. ", 2 * kBytes));
  const auto refused = maskRequest(request, all(), limits);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().reason == "scanning the request took longer than 10 ms");
  // Within its time it masks.
  limits.max_scan_time = std::chrono::seconds(10);
  wire::Request fits = requestOf(repeated("Mail ann@example.com about the invoice. ", 2 * kBytes));
  BOOST_TEST(maskRequest(fits, all(), limits).has_value());
}

BOOST_AUTO_TEST_CASE(a_request_past_its_scan_bytes_fails_closed_across_texts) {
  MaskLimits limits;
  limits.max_scanned_bytes = 1000;
  wire::Request request;
  for (int i = 0; i < 3; ++i) {
    wire::Message message;
    message.content.push_back(wire::ContentBlock::ofText(std::string(400, 'x')));
    request.messages.push_back(std::move(message));
  }
  const auto refused = maskRequest(request, all(), limits);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().reason == "the request has more than 1000 bytes of text to scan");
  request.messages.pop_back();
  BOOST_TEST(maskRequest(request, all(), limits).has_value());
}

BOOST_AUTO_TEST_CASE(the_values_searched_again_are_bounded_in_bytes) {
  MaskLimits limits;
  limits.max_known_bytes = 100;
  std::string text;
  for (int i = 0; i < 10; ++i) text += "user" + std::to_string(i) + "@example.com ";
  wire::Request request = requestOf(text);
  const auto refused = maskRequest(request, all(), limits);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().reason.find("hold more than 100 bytes") != std::string::npos);
  BOOST_TEST(refused.error().reason.find("example.com") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_stream_opening_many_blocks_restores_in_linear_time) {
  Mapping mapping;
  mapping.assign(Kind::Email, 1, "ann@example.com");
  const auto restore = [&](int blocks) {
    StreamRestorer restorer(mapping);
    std::vector<wire::StreamEvent> out;
    const double started = cpuSeconds();
    for (int i = 0; i < blocks; ++i) {
      wire::StreamEvent event;
      event.type = wire::StreamEvent::Type::BlockDelta;
      event.index = i;
      event.delta = "hi \xE2\x9F";  // a held tail in every block
      restorer.feed(std::move(event), out);
      out.clear();
    }
    return cpuSeconds() - started;
  };
  const double few = std::max(restore(2'000), 1e-4);
  const double many = restore(40'000);
  // 20 times the blocks: a linear restorer takes about 20 times as long, a list searched per
  // event 400 times.
  BOOST_TEST(many < 60 * few, "2,000 blocks " << few << " s, 40,000 blocks " << many << " s");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::protection
