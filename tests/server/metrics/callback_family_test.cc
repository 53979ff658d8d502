#include "server/metrics/callback_family.h"

#include <string>
#include <string_view>

#include <boost/test/unit_test.hpp>

#include "server/metrics/registry.h"

using sluice::metrics::Registry;
using sluice::metrics::Samples;

namespace {

// The render of a registry from the first family after its own (sluice_metrics_series_dropped_total,
// always first and without series here).
std::string renderOwn(const Registry& registry) {
  const std::string text = registry.render();
  const size_t second = text.find("\n# HELP ", text.find("# TYPE "));
  BOOST_REQUIRE(text.starts_with("# HELP sluice_metrics_series_dropped_total "));
  return second == std::string::npos ? std::string() : text.substr(second + 1);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(callback_family)

BOOST_AUTO_TEST_CASE(callback_families_are_read_at_render_sorted_and_deduplicated) {
  Registry registry;
  double depth = 3;
  registry.gaugeCallback("breaker", "Breaker.", {"provider", "endpoint"}, [&] {
    Samples samples;
    samples.push_back({{"zeta", "main"}, 2});
    samples.push_back({{"alpha", "eu"}, depth});
    samples.push_back({{"alpha", "eu"}, 99});    // repeated: the first wins
    samples.push_back({{"wrong arity"}, 1});     // skipped
    return samples;
  });
  registry.counterCallback("rows_written_total", "Rows.", {}, [] { return Samples{{{}, 12}}; });
  BOOST_TEST(renderOwn(registry) ==
             "# HELP breaker Breaker.\n"
             "# TYPE breaker gauge\n"
             "breaker{provider=\"alpha\",endpoint=\"eu\"} 3\n"
             "breaker{provider=\"zeta\",endpoint=\"main\"} 2\n"
             "# HELP rows_written_total Rows.\n"
             "# TYPE rows_written_total counter\n"
             "rows_written_total 12\n");
  depth = 0.5;
  BOOST_TEST(renderOwn(registry).find("breaker{provider=\"alpha\",endpoint=\"eu\"} 0.5\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(callback_series_follow_the_source_between_renders) {
  Registry registry;
  Samples nodes{{{"a"}, 1}, {{"b"}, 0}};
  double rows = 10;
  registry.gaugeCallback("node_up", "Up.", {"node"}, [&] { return nodes; });
  registry.counterCallback("rows_total", "Rows.", {}, [&] { return Samples{{{}, rows}}; });
  BOOST_TEST(renderOwn(registry).find("node_up{node=\"a\"} 1\nnode_up{node=\"b\"} 0\n") != std::string::npos);
  nodes = {{{"b"}, 1}};  // a left: its series goes
  rows = 25;
  std::string text = renderOwn(registry);
  BOOST_TEST(text.find("# TYPE node_up gauge\nnode_up{node=\"b\"} 1\n# HELP ") != std::string::npos, text);
  BOOST_TEST(text.find("rows_total 25\n") != std::string::npos, text);
  nodes.clear();
  rows = 4;  // the source started again: so does the counter
  text = renderOwn(registry);
  BOOST_TEST(text.find("# TYPE node_up gauge\n# HELP ") != std::string::npos, text);
  BOOST_TEST(text.find("rows_total 4\n") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(callback_label_values_become_valid_utf8_before_deduplication) {
  Registry registry;
  registry.gaugeCallback("odd", "Odd.", {"v"}, [] { return Samples{{{"a\xFF"}, 1}, {{"a\xFE"}, 2}}; });
  BOOST_TEST(renderOwn(registry) == "# HELP odd Odd.\n# TYPE odd gauge\nodd{v=\"a\xEF\xBF\xBD\"} 1\n");
  BOOST_TEST(renderOwn(registry) == "# HELP odd Odd.\n# TYPE odd gauge\nodd{v=\"a\xEF\xBF\xBD\"} 1\n");
}

BOOST_AUTO_TEST_SUITE_END()
