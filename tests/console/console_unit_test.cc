// The console's pure parts: sessions and their expiry, the history diff and the unified diff, query
// and duration parsing; and its static files, compiled in from admin-ui/.
#define BOOST_TEST_MODULE console_unit_test
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "server/admin/assets.h"
#include "server/admin/exchange.h"
#include "server/admin/line_diff.h"
#include "server/admin/session_table.h"
#include "server/admin/sign_in_throttle.h"
#include "tests/support/test_env.h"

using namespace sluice::admin;
using namespace std::chrono_literals;

namespace {
const TimePoint kStart = TimePoint(std::chrono::seconds(1'800'000'000));

std::string render(const std::vector<DiffLine>& lines) {
  std::string out;
  for (const auto& line : lines) out += std::string(1, line.op) + line.text + "\n";
  return out;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(session_table)

BOOST_AUTO_TEST_CASE(creates_random_ids_and_csrf_tokens_of_256_bits) {
  SessionTable table;
  const auto a = table.create("root", "abcdefgh", kStart);
  const auto b = table.create("root", "abcdefgh", kStart);
  BOOST_TEST(a.id.size() == 64u);
  BOOST_TEST(a.csrf.size() == 64u);
  BOOST_TEST(a.id != b.id);
  BOOST_TEST(a.id != a.csrf);
  BOOST_TEST(table.find(a.id, kStart)->user == "root");
}

BOOST_AUTO_TEST_CASE(expires_after_an_idle_hour_but_use_keeps_it_alive) {
  SessionTable table;
  const auto session = table.create("root", "k", kStart);
  BOOST_TEST(table.find(session.id, kStart + 50min).has_value());
  BOOST_TEST(table.find(session.id, kStart + 100min).has_value());  // 50 min after the last use
  BOOST_TEST(!table.find(session.id, kStart + 161min).has_value());
  BOOST_TEST(table.size() == 0u);
}

BOOST_AUTO_TEST_CASE(expires_twelve_hours_after_sign_in_however_used) {
  SessionTable table;
  const auto session = table.create("root", "k", kStart);
  for (auto at = kStart; at < kStart + 12h; at += 30min) BOOST_TEST(table.find(session.id, at).has_value());
  BOOST_TEST(!table.find(session.id, kStart + 12h).has_value());
}

BOOST_AUTO_TEST_CASE(erase_signs_out_and_unknown_ids_find_nothing) {
  SessionTable table;
  const auto session = table.create("root", "k", kStart);
  table.erase(session.id);
  BOOST_TEST(!table.find(session.id, kStart).has_value());
  BOOST_TEST(!table.find("", kStart).has_value());
}

BOOST_AUTO_TEST_CASE(drops_the_least_recently_used_past_the_cap) {
  SessionPolicy policy;
  policy.max_sessions = 2;
  SessionTable table(policy);
  const auto a = table.create("a", "k", kStart);
  const auto b = table.create("b", "k", kStart + 1s);
  table.find(a.id, kStart + 2s);
  table.create("c", "k", kStart + 3s);
  BOOST_TEST(table.find(a.id, kStart + 4s).has_value());
  BOOST_TEST(!table.find(b.id, kStart + 4s).has_value());
}

BOOST_AUTO_TEST_CASE(constant_time_equals_compares_whole_strings) {
  BOOST_TEST(constantTimeEquals("abc", "abc"));
  BOOST_TEST(!constantTimeEquals("abc", "abd"));
  BOOST_TEST(!constantTimeEquals("abc", "ab"));
  BOOST_TEST(!constantTimeEquals("", "a"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sign_in_throttle)

BOOST_AUTO_TEST_CASE(row11_sign_in_is_throttled_per_peer) {
  using namespace std::chrono_literals;
  sluice::admin::SignInThrottle throttle;  // 5 failures a minute
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  for (int i = 0; i < 5; ++i) {
    BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + i * 1s).count() == 0);
    throttle.recordFailure("10.0.0.1", t0 + i * 1s);
  }
  // The sixth try within the minute waits until the first failure is a minute old.
  BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + 10s).count() == 50);
  BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + 59500ms).count() == 1);
  BOOST_TEST(throttle.refused() == 2u);
  // Another address is not held back by the first one's failures.
  BOOST_TEST(throttle.retryAfter("10.0.0.2", t0 + 10s).count() == 0);
  // Once the oldest failure leaves the window, one more try is allowed; failing it waits again.
  BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + 60s).count() == 0);
  throttle.recordFailure("10.0.0.1", t0 + 60s);
  BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + 60s).count() == 1);
  BOOST_TEST(throttle.retryAfter("10.0.0.1", t0 + 125s).count() == 0);
}

BOOST_AUTO_TEST_CASE(the_table_of_peers_is_bounded) {
  using namespace std::chrono_literals;
  sluice::admin::SignInThrottle throttle({.failures = 1, .window = 60s, .max_peers = 3});
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  for (int i = 0; i < 3; ++i) throttle.recordFailure("p" + std::to_string(i), t0);
  BOOST_TEST(throttle.retryAfter("p0", t0).count() == 60);
  // Past the bound, the stale entries go first (none here), then all.
  throttle.recordFailure("p3", t0 + 1s);
  BOOST_TEST(throttle.retryAfter("p0", t0 + 1s).count() == 0);
  BOOST_TEST(throttle.retryAfter("p3", t0 + 1s).count() == 60);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(line_diff)

BOOST_AUTO_TEST_CASE(marks_added_and_removed_lines_around_common_ones) {
  const auto diff = lineDiff("a\nb\nc\n", "a\nx\nc\nd\n");
  BOOST_TEST(render(diff) == " a\n-b\n+x\n c\n+d\n");
}

BOOST_AUTO_TEST_CASE(identical_texts_have_no_change_and_empty_to_text_is_all_added) {
  BOOST_TEST(render(lineDiff("a\nb", "a\nb")) == " a\n b\n");
  BOOST_TEST(render(lineDiff("", "a\nb\n")) == "+a\n+b\n");
}

BOOST_AUTO_TEST_SUITE_END()

// "Copy as diff": the text `git apply` reads, as GNU diff -u writes it.
BOOST_AUTO_TEST_SUITE(unified_diff)

std::string numbered(int from, int to, int changed = 0, const std::string& as = "") {
  std::string out;
  for (int i = from; i <= to; ++i) out += (i == changed ? as : "l" + std::to_string(i)) + "\n";
  return out;
}

BOOST_AUTO_TEST_CASE(equal_texts_have_no_diff) {
  BOOST_TEST(unifiedDiff("a\nb\n", "a\nb\n", "services/ai/gateway.yaml").empty());
}

BOOST_AUTO_TEST_CASE(one_changed_line_gets_three_lines_of_context_each_side) {
  BOOST_TEST(unifiedDiff(numbered(1, 10), numbered(1, 10, 5, "X"), "services/ai/gateway.yaml") ==
             "--- a/services/ai/gateway.yaml\n+++ b/services/ai/gateway.yaml\n"
             "@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+X\n l6\n l7\n l8\n");
}

BOOST_AUTO_TEST_CASE(changes_far_apart_are_two_hunks_and_close_ones_one) {
  std::string after = numbered(1, 20, 2, "X");
  after.replace(after.find("l15\n"), 4, "Y\nZ\n");
  BOOST_TEST(unifiedDiff(numbered(1, 20), after, "p") ==
             "--- a/p\n+++ b/p\n"
             "@@ -1,5 +1,5 @@\n l1\n-l2\n+X\n l3\n l4\n l5\n"
             "@@ -12,7 +12,8 @@\n l12\n l13\n l14\n-l15\n+Y\n+Z\n l16\n l17\n l18\n");
  std::string close = numbered(1, 10, 3, "X");
  close.replace(close.find("l8\n"), 3, "Y\n");
  const std::string one = unifiedDiff(numbered(1, 10), close, "p");
  BOOST_TEST(one.find("@@ -1,10 +1,10 @@\n") != std::string::npos);
  BOOST_TEST(one.find("@@ -", one.find("@@ -") + 1) == std::string::npos);  // one hunk
}

BOOST_AUTO_TEST_CASE(an_empty_side_is_numbered_from_the_line_before) {
  BOOST_TEST(unifiedDiff("", "a\nb\n", "p") == "--- a/p\n+++ b/p\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  BOOST_TEST(unifiedDiff("a\nb\nc\n", "a\nb\n", "p") == "--- a/p\n+++ b/p\n@@ -1,3 +1,2 @@\n a\n b\n-c\n");
  BOOST_TEST(unifiedDiff("a\n", "a\nb\n", "p") == "--- a/p\n+++ b/p\n@@ -1 +1,2 @@\n a\n+b\n");
}

BOOST_AUTO_TEST_CASE(a_missing_final_newline_is_marked_and_adding_one_is_a_change) {
  BOOST_TEST(unifiedDiff("a\nb", "a\nb\n", "p") ==
             "--- a/p\n+++ b/p\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  BOOST_TEST(unifiedDiff("a\nb\n", "a\nc", "p") ==
             "--- a/p\n+++ b/p\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(exchange)

BOOST_AUTO_TEST_CASE(parses_queries_with_escapes_and_plus) {
  const auto query = parseQuery("user=al%40ice&model=claude+x&empty=&flag");
  BOOST_TEST(query.at("user") == "al@ice");
  BOOST_TEST(query.at("model") == "claude x");
  BOOST_TEST(query.at("empty") == "");
  BOOST_TEST(query.at("flag") == "");
  BOOST_TEST(parseQuery("bad=%4").at("bad") == "%4");
}

BOOST_AUTO_TEST_CASE(parses_durations_and_refuses_the_rest) {
  BOOST_TEST(*parseDurationSeconds("90s") == 90);
  BOOST_TEST(*parseDurationSeconds("15m") == 900);
  BOOST_TEST(*parseDurationSeconds("24h") == 86400);
  BOOST_TEST(*parseDurationSeconds("7d") == 7 * 86400);
  BOOST_TEST(*parseDurationSeconds("2w") == 14 * 86400);
  BOOST_TEST(!parseDurationSeconds("h").has_value());
  BOOST_TEST(!parseDurationSeconds("1y").has_value());
  BOOST_TEST(!parseDurationSeconds("-1h").has_value());
}

BOOST_AUTO_TEST_CASE(escapes_html) {
  BOOST_TEST(htmlEscape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(embedded_assets)

BOOST_AUTO_TEST_CASE(every_file_of_admin_ui_is_compiled_in_byte_for_byte) {
  const std::filesystem::path dir = std::filesystem::path(sluice::test::sourceDir()) / "admin-ui";
  BOOST_REQUIRE(std::filesystem::is_directory(dir));
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string name = entry.path().filename().string();
    const Asset* asset = findAsset(name);
    BOOST_REQUIRE_MESSAGE(asset != nullptr, name << " is not embedded");
    std::ostringstream text;
    text << std::ifstream(entry.path(), std::ios::binary).rdbuf();
    BOOST_TEST((asset->body == text.str()), name << " differs from its embedded copy");
  }
  BOOST_TEST(files > 0u);
  BOOST_TEST(embeddedAssets().size() == files);
  BOOST_TEST(findAsset("console.js")->content_type == "text/javascript; charset=utf-8");
  BOOST_TEST(findAsset("console.html")->content_type == "text/html; charset=utf-8");
  BOOST_TEST(assetsVersion().size() == 12u);
}

BOOST_AUTO_TEST_SUITE_END()
