#pragma once
// Sluice's Prometheus metrics on prometheus-cpp: a prometheus::Registry of counter, gauge and
// histogram families with labels, rendered by prometheus::TextSerializer in the text exposition
// format 0.0.4 (what GET /metrics answers).
//
// Contract:
//  - Registry::counter/gauge/histogram register a family, or return the one already registered
//    under that name when type, label names (and bounds) are the same; any difference throws
//    std::logic_error. A name or label name outside the Prometheus grammar (prometheus-cpp's
//    CheckMetricName/CheckLabelName: names starting "__" are reserved), a repeated label name, a
//    counter name that does not end in `_total`, or a name whose samples would collide with
//    another family's (`x_count` next to histogram `x`) throws std::invalid_argument (a
//    std::logic_error).
//  - family.with(label values): see family.h (handles, series limit and overflow series).
//  - render() writes families in registration order (sluice_metrics_series_dropped_total first,
//    the registry's own), labels in each family's declared order, series sorted by label values,
//    HELP and TYPE even for a family without series. Values are written as TextSerializer writes
//    them: up to 16 significant digits, exponent form below 1e-4 or from 1e16 ("1e-05"), "+Inf",
//    "-Inf", "Nan". It calls the callback families' callbacks on the caller's thread, without
//    holding any registry lock (each callback family serialises its own).
//
// Thread-safety: every member of Registry and of the families may be called from any thread.
// Lifetime: the families live as long as the Registry.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/registry.h>

#include "server/metrics/callback_family.h"
#include "server/metrics/family.h"
#include "server/metrics/series.h"

namespace sluice::metrics {

// The Content-Type of render()'s output.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";
// The registry's own family: with() calls answered by an overflow series, by family name.
inline constexpr std::string_view kSeriesDroppedName = "sluice_metrics_series_dropped_total";

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  CounterFamily& counter(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
  GaugeFamily& gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
  // `bounds`: strictly increasing, no NaN; a trailing +Inf is dropped (always present).
  // Otherwise std::invalid_argument. Label name `le` is reserved.
  HistogramFamily& histogram(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                             std::vector<double> bounds);

  // Families whose samples come from `callback`, called by every render() (see
  // callback_family.h). The callback must not throw and must not call render(); it may be
  // called from any thread. Registering a name twice throws std::logic_error.
  // counterCallback: the values must only go up (cumulative figures read from elsewhere).
  void gaugeCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                     SamplesCallback callback);
  void counterCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                       SamplesCallback callback);

  // The default series limit of families registered after the call.
  void setDefaultMaxSeries(size_t max_series);

  // The exposition: every family, `# HELP` and `# TYPE` lines, then the samples; ends in '\n'.
  std::string render() const;

  // The prometheus-cpp registry underneath (to expose it by other means). Its families are
  // written through this Registry only; collecting it directly gives prometheus-cpp's own order
  // and leaves the callback families as of the last render().
  prometheus::Registry& native() noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sluice::metrics
