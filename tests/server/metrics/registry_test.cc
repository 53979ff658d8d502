#include "server/metrics/registry.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <prometheus/metric_family.h>

using sluice::metrics::Counter;
using sluice::metrics::CounterFamily;
using sluice::metrics::Gauge;
using sluice::metrics::GaugeFamily;
using sluice::metrics::Histogram;
using sluice::metrics::HistogramFamily;
using sluice::metrics::Registry;
using sluice::metrics::Samples;

namespace {

// The lines render() wrote for family `name`: from its HELP line up to the next family's.
std::string block(const std::string& text, std::string_view name) {
  const std::string help = "# HELP " + std::string(name) + " ";
  size_t begin = text.starts_with(help) ? 0 : text.find("\n" + help);
  if (begin == std::string::npos) return "<no family " + std::string(name) + ">";
  if (begin != 0) ++begin;
  size_t end = text.find("\n# HELP ", begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

// The render of a registry without its own family (sluice_metrics_series_dropped_total), which
// every registry writes first.
std::string renderOwn(const Registry& registry) {
  const std::string text = registry.render();
  const std::string own = block(text, sluice::metrics::kSeriesDroppedName);
  BOOST_REQUIRE(text.starts_with(own));
  return text.substr(own.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(registry)

BOOST_AUTO_TEST_CASE(an_empty_registry_renders_only_its_own_family) {
  Registry registry;
  BOOST_TEST(registry.render() ==
             "# HELP sluice_metrics_series_dropped_total Label sets a metric family refused because it reached its "
             "series limit; they were counted in the family's overflow series whose labels are all \"other\".\n"
             "# TYPE sluice_metrics_series_dropped_total counter\n");
}

BOOST_AUTO_TEST_CASE(counter_renders_help_type_and_series_sorted_by_label_values) {
  Registry registry;
  CounterFamily& family = registry.counter("http_requests_total", "Requests handled.", {"method", "code"});
  family.with({"post", "200"}).inc();
  family.with({"get", "500"}).inc(3);
  family.with({"get", "200"}).inc();
  family.with({"get", "200"}).inc();
  BOOST_TEST(renderOwn(registry) ==
             "# HELP http_requests_total Requests handled.\n"
             "# TYPE http_requests_total counter\n"
             "http_requests_total{method=\"get\",code=\"200\"} 2\n"
             "http_requests_total{method=\"get\",code=\"500\"} 3\n"
             "http_requests_total{method=\"post\",code=\"200\"} 1\n");
}

BOOST_AUTO_TEST_CASE(a_family_without_labels_renders_zero_before_any_update) {
  Registry registry;
  registry.counter("jobs_total", "Jobs.");
  registry.gauge("queue_depth", "Depth.");
  BOOST_TEST(renderOwn(registry) ==
             "# HELP jobs_total Jobs.\n"
             "# TYPE jobs_total counter\n"
             "jobs_total 0\n"
             "# HELP queue_depth Depth.\n"
             "# TYPE queue_depth gauge\n"
             "queue_depth 0\n");
}

BOOST_AUTO_TEST_CASE(a_family_with_labels_renders_only_help_and_type_until_a_series_exists) {
  Registry registry;
  registry.counter("errors_total", "Errors.", {"kind"});
  BOOST_TEST(renderOwn(registry) == "# HELP errors_total Errors.\n# TYPE errors_total counter\n");
}

BOOST_AUTO_TEST_CASE(counters_add_fractions_and_ignore_negative_amounts) {
  Registry registry;
  Counter& counter = registry.counter("cost_dollars_total", "Cost.").with({});
  counter.inc(2);
  counter.add(0.25);
  counter.add(-5);
  counter.add(std::nan(""));
  BOOST_TEST(counter.value() == 2.25);
  BOOST_TEST(renderOwn(registry) == "# HELP cost_dollars_total Cost.\n# TYPE cost_dollars_total counter\ncost_dollars_total 2.25\n");
}

BOOST_AUTO_TEST_CASE(gauges_go_up_and_down_and_print_special_values) {
  Registry registry;
  GaugeFamily& family = registry.gauge("temperature_celsius", "Temperature.", {"room"});
  Gauge& kitchen = family.with({"kitchen"});
  kitchen.set(20);
  kitchen.inc();
  kitchen.dec(0.5);
  family.with({"attic"}).set(-std::numeric_limits<double>::infinity());
  family.with({"cellar"}).set(std::nan(""));
  family.with({"garage"}).set(1e-7);
  BOOST_TEST(renderOwn(registry) ==
             "# HELP temperature_celsius Temperature.\n"
             "# TYPE temperature_celsius gauge\n"
             "temperature_celsius{room=\"attic\"} -Inf\n"
             "temperature_celsius{room=\"cellar\"} Nan\n"  // prometheus-cpp's spelling; parsers ignore case
             "temperature_celsius{room=\"garage\"} 1e-07\n"
             "temperature_celsius{room=\"kitchen\"} 20.5\n");
}

BOOST_AUTO_TEST_CASE(histogram_buckets_are_cumulative_inclusive_and_end_with_inf) {
  Registry registry;
  HistogramFamily& family = registry.histogram("latency_seconds", "Latency.", {"path"}, {0.125, 0.5, 1, 2.5});
  Histogram& h = family.with({"/v1"});
  h.observe(0.0625);
  h.observe(0.125);  // on a bound: that bucket (le is inclusive)
  h.observe(0.25);
  h.observe(2.5);
  h.observe(7);
  BOOST_TEST(h.count() == 5u);
  BOOST_TEST(renderOwn(registry) ==
             "# HELP latency_seconds Latency.\n"
             "# TYPE latency_seconds histogram\n"
             "latency_seconds_count{path=\"/v1\"} 5\n"  // TextSerializer writes count and sum first
             "latency_seconds_sum{path=\"/v1\"} 9.9375\n"
             "latency_seconds_bucket{path=\"/v1\",le=\"0.125\"} 2\n"
             "latency_seconds_bucket{path=\"/v1\",le=\"0.5\"} 3\n"
             "latency_seconds_bucket{path=\"/v1\",le=\"1\"} 3\n"
             "latency_seconds_bucket{path=\"/v1\",le=\"2.5\"} 4\n"
             "latency_seconds_bucket{path=\"/v1\",le=\"+Inf\"} 5\n");
}

BOOST_AUTO_TEST_CASE(histogram_without_labels_and_nan_observation) {
  Registry registry;
  Histogram& h = registry.histogram("batch_rows", "Rows.", {}, {1, 10, std::numeric_limits<double>::infinity()}).with({});
  h.observe(std::nan(""));
  h.observe(-1);
  BOOST_TEST(renderOwn(registry) ==
             "# HELP batch_rows Rows.\n"
             "# TYPE batch_rows histogram\n"
             "batch_rows_count 2\n"
             "batch_rows_sum Nan\n"
             "batch_rows_bucket{le=\"1\"} 1\n"  // -1 only: NaN goes to +Inf alone
             "batch_rows_bucket{le=\"10\"} 1\n"
             "batch_rows_bucket{le=\"+Inf\"} 2\n");
  BOOST_TEST(h.bucketCount(0) == 1u);
  BOOST_TEST(h.bucketCount(2) == 1u);
}

BOOST_AUTO_TEST_CASE(histogram_bucket_bounds_print_exactly) {
  Registry registry;
  registry.histogram("tiny_seconds", "Tiny.", {}, {0.00001, 0.000025, 0.1, 1024, 67108864});
  const std::string text = renderOwn(registry);
  BOOST_TEST(text.find("tiny_seconds_bucket{le=\"1e-05\"} 0\n") != std::string::npos);
  BOOST_TEST(text.find("tiny_seconds_bucket{le=\"2.5e-05\"} 0\n") != std::string::npos);
  BOOST_TEST(text.find("tiny_seconds_bucket{le=\"0.1\"} 0\n") != std::string::npos);
  BOOST_TEST(text.find("tiny_seconds_bucket{le=\"1024\"} 0\n") != std::string::npos);
  BOOST_TEST(text.find("tiny_seconds_bucket{le=\"67108864\"} 0\n") != std::string::npos);
  BOOST_TEST(text.find("tiny_seconds_count 0\ntiny_seconds_sum 0\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_and_label_values_are_escaped) {
  Registry registry;
  CounterFamily& family = registry.counter("odd_total", "Back\\slash, \"quotes\" and\nnewline.", {"value"});
  family.with({"a\\b"}).inc();
  family.with({"say \"hi\"\nbye"}).inc();
  family.with({"bad \xFF byte"}).inc();
  BOOST_TEST(renderOwn(registry) ==
             "# HELP odd_total Back\\\\slash, \"quotes\" and\\nnewline.\n"
             "# TYPE odd_total counter\n"
             "odd_total{value=\"a\\\\b\"} 1\n"
             "odd_total{value=\"bad \xEF\xBF\xBD byte\"} 1\n"
             "odd_total{value=\"say \\\"hi\\\"\\nbye\"} 1\n");
}

BOOST_AUTO_TEST_CASE(past_the_series_limit_label_sets_share_the_overflow_series_and_are_counted) {
  Registry registry;
  CounterFamily& family = registry.counter("calls_total", "Calls.", {"model", "route"});
  family.setMaxSeries(2);
  Counter& a = family.with({"a", "r"});
  Counter& b = family.with({"b", "r"});
  Counter& c = family.with({"c", "r"});
  Counter& d = family.with({"d", "r"});
  BOOST_TEST(&a != &b);
  BOOST_TEST(&c == &d);
  BOOST_TEST(&c == &family.with({"other", "other"}));
  BOOST_TEST(&a == &family.with({"a", "r"}));  // existing series keep answering
  a.inc();
  c.inc();
  d.inc();
  BOOST_TEST(family.seriesCount() == 3u);
  BOOST_TEST(registry.render() ==
             "# HELP sluice_metrics_series_dropped_total Label sets a metric family refused because it reached its "
             "series limit; they were counted in the family's overflow series whose labels are all \"other\".\n"
             "# TYPE sluice_metrics_series_dropped_total counter\n"
             "sluice_metrics_series_dropped_total{family=\"calls_total\"} 2\n"
             "# HELP calls_total Calls.\n"
             "# TYPE calls_total counter\n"
             "calls_total{model=\"a\",route=\"r\"} 1\n"
             "calls_total{model=\"b\",route=\"r\"} 0\n"
             "calls_total{model=\"other\",route=\"other\"} 2\n");
}

BOOST_AUTO_TEST_CASE(the_default_series_limit_is_a_thousand_and_settable_per_registry) {
  Registry registry;
  CounterFamily& wide = registry.counter("wide_total", "Wide.", {"k"});
  for (int i = 0; i < 1000; ++i) wide.with({std::to_string(i)});
  BOOST_TEST(&wide.with({"1000"}) == &wide.with({"other"}));
  registry.setDefaultMaxSeries(1);
  CounterFamily& narrow = registry.counter("narrow_total", "Narrow.", {"k"});
  narrow.with({"x"});
  BOOST_TEST(&narrow.with({"y"}) == &narrow.with({"other"}));
}

BOOST_AUTO_TEST_CASE(drops_count_even_when_the_overflow_series_was_asked_for_first) {
  Registry registry;
  CounterFamily& family = registry.counter("calls_total", "Calls.", {"k"});
  family.setMaxSeries(1);
  family.with({"other"}).inc();
  family.with({"a"}).inc();
  family.with({"b"}).inc();  // past the limit: the overflow series, counted
  family.with({"c"}).inc();
  const std::string text = registry.render();
  BOOST_TEST(text.find("sluice_metrics_series_dropped_total{family=\"calls_total\"} 2\n") != std::string::npos, text);
  BOOST_TEST(text.find("calls_total{k=\"other\"} 3\n") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(histograms_and_gauges_overflow_too) {
  Registry registry;
  HistogramFamily& h = registry.histogram("h_seconds", "H.", {"k"}, {1});
  GaugeFamily& g = registry.gauge("g", "G.", {"k"});
  h.setMaxSeries(0);
  g.setMaxSeries(0);
  h.with({"x"}).observe(0.5);
  g.with({"x"}).set(3);
  const std::string text = registry.render();
  BOOST_TEST(text.find("h_seconds_count{k=\"other\"} 1\n") != std::string::npos);
  BOOST_TEST(text.find("g{k=\"other\"} 3\n") != std::string::npos);
  BOOST_TEST(text.find("sluice_metrics_series_dropped_total{family=\"g\"} 1\n") != std::string::npos);
  BOOST_TEST(text.find("sluice_metrics_series_dropped_total{family=\"h_seconds\"} 1\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(registering_the_same_family_again_returns_it) {
  Registry registry;
  CounterFamily& first = registry.counter("a_total", "A.", {"x"});
  BOOST_TEST(&first == &registry.counter("a_total", "Other help is fine.", {"x"}));
  HistogramFamily& h = registry.histogram("b_seconds", "B.", {}, {1, 2});
  BOOST_TEST(&h == &registry.histogram("b_seconds", "B.", {}, {1, 2}));
  GaugeFamily& g = registry.gauge("c", "C.");
  BOOST_TEST(&g == &registry.gauge("c", "C."));
}

BOOST_AUTO_TEST_CASE(registering_a_name_again_with_another_shape_throws) {
  Registry registry;
  registry.counter("a_total", "A.", {"x"});
  registry.histogram("b_seconds", "B.", {"x"}, {1, 2});
  registry.gaugeCallback("cb", "Cb.", {}, [] { return Samples{}; });
  BOOST_CHECK_THROW(registry.counter("a_total", "A.", {"y"}), std::logic_error);
  BOOST_CHECK_THROW(registry.counter("a_total", "A.", {"x", "y"}), std::logic_error);
  BOOST_CHECK_THROW(registry.gauge("a_total", "A.", {"x"}), std::logic_error);
  BOOST_CHECK_THROW(registry.histogram("b_seconds", "B.", {"x"}, {1, 3}), std::logic_error);
  BOOST_CHECK_THROW(registry.histogram("b_seconds", "B.", {}, {1, 2}), std::logic_error);
  BOOST_CHECK_THROW(registry.gauge("cb", "Cb."), std::logic_error);
  BOOST_CHECK_THROW(registry.gaugeCallback("cb", "Cb.", {}, [] { return Samples{}; }), std::logic_error);
  BOOST_CHECK_THROW(registry.counterCallback("a_total", "A.", {"x"}, [] { return Samples{}; }), std::logic_error);
}

BOOST_AUTO_TEST_CASE(names_outside_the_prometheus_grammar_are_refused) {
  Registry registry;
  BOOST_CHECK_THROW(registry.gauge("", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("1abc", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("a-b", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("a.b", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("ok", "x", {"bad-label"}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("ok", "x", {"__reserved"}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("ok", "x", {"9lives"}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("ok", "x", {"a", "a"}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.counter("requests", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.counter("_total", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.histogram("h", "x", {"le"}, {1}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.histogram("h", "x", {}, {2, 1}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.histogram("h", "x", {}, {1, 1}), std::invalid_argument);
  BOOST_CHECK_THROW(registry.histogram("h", "x", {}, {std::nan("")}), std::invalid_argument);
  BOOST_CHECK_NO_THROW(registry.gauge("ns:sub_name_9", "x", {"_x", "Y9"}));
  BOOST_CHECK_NO_THROW(registry.histogram("h", "x", {}, {}));  // +Inf only
}

BOOST_AUTO_TEST_CASE(sample_names_may_not_collide_across_families) {
  Registry registry;
  registry.histogram("size", "Size.", {}, {1});
  BOOST_CHECK_THROW(registry.gauge("size_count", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(registry.gauge("size_bucket", "x"), std::invalid_argument);
  registry.gauge("depth_sum", "x");
  BOOST_CHECK_THROW(registry.histogram("depth", "x", {}, {1}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(with_takes_exactly_one_value_per_label) {
  Registry registry;
  CounterFamily& family = registry.counter("a_total", "A.", {"x", "y"});
  BOOST_CHECK_THROW(family.with({"1"}), std::invalid_argument);
  BOOST_CHECK_THROW(family.with({"1", "2", "3"}), std::invalid_argument);
  const std::vector<std::string> values{"1", "2"};
  BOOST_TEST(&family.with(values) == &family.with({"1", "2"}));
}

BOOST_AUTO_TEST_CASE(references_stay_valid_while_the_family_grows) {
  Registry registry;
  CounterFamily& family = registry.counter("a_total", "A.", {"k"});
  Counter& first = family.with({"first"});
  for (int i = 0; i < 900; ++i) family.with({std::to_string(i)}).inc();
  first.inc(7);
  BOOST_TEST(&first == &family.with({"first"}));
  BOOST_TEST(family.with({"first"}).value() == 7);
}

BOOST_AUTO_TEST_CASE(a_removed_gauge_series_is_gone_until_asked_for_again) {
  Registry registry;
  GaugeFamily& family = registry.gauge("info", "Info.", {"version"});
  family.with({"v1"}).set(1);
  family.with({"v2"}).set(1);
  family.remove({"v1"});
  family.remove({"never"});
  BOOST_TEST(family.seriesCount() == 1u);
  BOOST_TEST(renderOwn(registry) == "# HELP info Info.\n# TYPE info gauge\ninfo{version=\"v2\"} 1\n");
  BOOST_TEST(family.with({"v1"}).value() == 0);  // a new series
  BOOST_TEST(renderOwn(registry) == "# HELP info Info.\n# TYPE info gauge\ninfo{version=\"v1\"} 0\ninfo{version=\"v2\"} 1\n");
  family.clear();
  BOOST_TEST(family.seriesCount() == 0u);
  BOOST_TEST(renderOwn(registry) == "# HELP info Info.\n# TYPE info gauge\n");
  // prometheus-cpp dropped them too.
  for (const auto& collected : registry.native().Collect()) BOOST_TEST(collected.name != "info");
}

BOOST_AUTO_TEST_CASE(removed_series_free_their_place_under_the_series_limit) {
  Registry registry;
  GaugeFamily& family = registry.gauge("version_info", "Version.", {"version"});
  family.setMaxSeries(2);
  for (int version = 0; version < 50; ++version) {
    family.with({std::to_string(version)}).set(1);
    if (version > 0) family.remove({std::to_string(version - 1)});
  }
  BOOST_TEST(renderOwn(registry) == "# HELP version_info Version.\n# TYPE version_info gauge\nversion_info{version=\"49\"} 1\n");
  family.with({"0"});  // shown again: counts again, and the limit of 2 is reached
  BOOST_TEST(&family.with({"fresh"}) == &family.with({"other"}));
}

BOOST_AUTO_TEST_CASE(families_are_prometheus_cpp_families_of_the_native_registry) {
  Registry registry;
  registry.counter("jobs_total", "Jobs.", {"kind"}).with({"x"}).inc(3);
  registry.histogram("wait_seconds", "Wait.", {}, {1}).with({}).observe(0.5);
  bool jobs = false;
  bool wait = false;
  for (const prometheus::MetricFamily& family : registry.native().Collect()) {
    if (family.name == "jobs_total") {
      jobs = true;
      BOOST_TEST((family.type == prometheus::MetricType::Counter));
      BOOST_TEST(family.metric.at(0).counter.value == 3);
    }
    if (family.name == "wait_seconds") {
      wait = true;
      BOOST_TEST(family.metric.at(0).histogram.sample_count == 1u);
    }
  }
  BOOST_TEST(jobs);
  BOOST_TEST(wait);
}

BOOST_AUTO_TEST_CASE(values_that_differ_only_in_invalid_utf8_share_a_series_until_both_go) {
  Registry registry;
  GaugeFamily& family = registry.gauge("g", "G.", {"v"});
  family.with({"a\xFF"}).set(1);
  family.with({"a\xFE"}).set(2);  // the same prometheus-cpp series
  BOOST_TEST(renderOwn(registry) == "# HELP g G.\n# TYPE g gauge\ng{v=\"a\xEF\xBF\xBD\"} 2\n");
  family.remove({"a\xFF"});
  family.with({"a\xFE"}).inc();  // still there
  BOOST_TEST(renderOwn(registry) == "# HELP g G.\n# TYPE g gauge\ng{v=\"a\xEF\xBF\xBD\"} 3\n");
  family.remove({"a\xFE"});
  BOOST_TEST(renderOwn(registry) == "# HELP g G.\n# TYPE g gauge\n");
}

BOOST_AUTO_TEST_CASE(families_render_in_registration_order) {
  Registry registry;
  registry.gauge("zzz", "Z.");
  registry.counter("aaa_total", "A.");
  registry.histogram("mmm", "M.", {}, {});
  const std::string text = renderOwn(registry);
  BOOST_TEST(text.find("# HELP zzz") < text.find("# HELP aaa_total"));
  BOOST_TEST(text.find("# HELP aaa_total") < text.find("# HELP mmm"));
}

BOOST_AUTO_TEST_CASE(concurrent_updates_are_exact) {
  Registry registry;
  CounterFamily& counters = registry.counter("hits_total", "Hits.", {"thread"});
  HistogramFamily& histograms = registry.histogram("work_seconds", "Work.", {"thread"}, {0.5});
  Gauge& gauge = registry.gauge("busy", "Busy.").with({});
  constexpr int kThreads = 8;
  constexpr int kIterations = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string own = "t" + std::to_string(t);
      for (int i = 0; i < kIterations; ++i) {
        counters.with({"shared"}).inc();  // looked up every time: the creation race
        counters.with({own}).inc(2);
        counters.with({"fractions"}).add(0.5);
        histograms.with({"shared"}).observe(i % 2 == 0 ? 0.25 : 1.0);
        gauge.inc();
        gauge.dec();
        if (i % 5000 == 0) (void)registry.render();  // readers alongside writers
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(counters.with({"shared"}).value() == kThreads * kIterations);
  BOOST_TEST(counters.with({"fractions"}).value() == kThreads * kIterations * 0.5);
  for (int t = 0; t < kThreads; ++t) BOOST_TEST(counters.with({"t" + std::to_string(t)}).value() == 2 * kIterations);
  Histogram& h = histograms.with({"shared"});
  BOOST_TEST(h.count() == static_cast<uint64_t>(kThreads * kIterations));
  BOOST_TEST(h.bucketCount(0) == static_cast<uint64_t>(kThreads * kIterations / 2));
  BOOST_TEST(h.sum() == kThreads * kIterations / 2 * 1.25);
  BOOST_TEST(gauge.value() == 0);
  BOOST_TEST(counters.seriesCount() == static_cast<size_t>(kThreads + 2));
}

BOOST_AUTO_TEST_CASE(concurrent_creation_past_the_limit_is_bounded) {
  Registry registry;
  CounterFamily& family = registry.counter("keys_total", "Keys.", {"key"});
  family.setMaxSeries(50);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) family.with({std::to_string(t * 1000 + i)}).inc();
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(family.seriesCount() == 51u);  // 50 + the overflow series
  BOOST_TEST(family.with({"other"}).value() == 4000 - 50);
  const std::string text = registry.render();
  BOOST_TEST(text.find("sluice_metrics_series_dropped_total{family=\"keys_total\"} 3950\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
