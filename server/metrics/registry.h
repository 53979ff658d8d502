#pragma once
// Sluice's own Prometheus metrics: a registry of counter, gauge and histogram families with
// labels, rendered in the text exposition format 0.0.4 (what GET /metrics answers).
//
// Contract:
//  - Registry::counter/gauge/histogram register a family, or return the one already registered
//    under that name when type, label names (and bounds) are the same; any difference throws
//    std::logic_error. A name or label name outside the Prometheus grammar, a counter name that
//    does not end in `_total`, or a name whose samples would collide with another family's
//    (`x_count` next to histogram `x`) throws std::invalid_argument (a std::logic_error).
//  - family.with(label values) returns a reference valid for the Registry's lifetime. Creating
//    a series takes the family's mutex; updating it (inc/set/observe) is lock-free (atomics).
//    Callers on the hot path cache the reference. A label-less family has one series from the
//    start, so it renders 0 before the first update.
//  - Cardinality is bounded: a family holds at most max_series label sets (kDefaultMaxSeries,
//    setMaxSeries()). Past it, with() answers one shared overflow series whose label values are
//    all "other", and counts the call in sluice_metrics_series_dropped_total{family}.
//  - render() writes families in registration order (sluice_metrics_series_dropped_total first,
//    the registry's own) and series sorted by label values. It calls callbacks on the caller's
//    thread without holding any registry lock.
//
// Thread-safety: every member of Registry and of the families may be called from any thread.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/metrics/family.h"
#include "server/metrics/series.h"

namespace sluice::metrics {

// The Content-Type of render()'s output.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";
// The registry's own family: with() calls answered by an overflow series, by family name.
inline constexpr std::string_view kSeriesDroppedName = "sluice_metrics_series_dropped_total";

// What a callback family reports at render time: (label values, value) pairs.
using Samples = std::vector<std::pair<std::vector<std::string>, double>>;
using SamplesCallback = std::function<Samples()>;

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The returned family lives as long as the Registry.
  CounterFamily& counter(std::string_view name, std::string_view help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& gauge(std::string_view name, std::string_view help,
                     std::vector<std::string> label_names = {});
  // `bounds`: strictly increasing, no NaN; a trailing +Inf is dropped (always present).
  // Otherwise std::invalid_argument. Label name `le` is reserved.
  HistogramFamily& histogram(std::string_view name, std::string_view help,
                             std::vector<std::string> label_names, std::vector<double> bounds);

  // Families whose samples come from `callback`, called by every render(). The callback must
  // not throw and must not call render(); it may be called from any thread. A sample whose
  // number of label values differs from label_names is skipped, as is a repeated label set
  // (the first one wins). Registering a name twice throws std::logic_error.
  // counterCallback: the values must only go up (cumulative figures read from elsewhere).
  void gaugeCallback(std::string_view name, std::string_view help,
                     std::vector<std::string> label_names, SamplesCallback callback);
  void counterCallback(std::string_view name, std::string_view help,
                       std::vector<std::string> label_names, SamplesCallback callback);

  // The default max_series of families registered after the call.
  void setDefaultMaxSeries(size_t max_series);

  // The exposition: every family, `# HELP` and `# TYPE` lines, then the samples; ends in '\n'.
  std::string render() const;

 private:
  struct State;
  // counter(), gauge() and histogram(): the family registered as `name`, or a new one.
  template <class Series>
  MetricFamily<Series>& family(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                               std::vector<double> bounds);
  // gaugeCallback() and counterCallback().
  void callback(std::string_view name, std::string_view help, MetricType type, std::vector<std::string> label_names,
                SamplesCallback callback);

  std::unique_ptr<State> state_;
};

}  // namespace sluice::metrics
