#pragma once
// Metric families: a name, help text and label names over one prometheus-cpp family
// (prometheus::Family<T>), and the table of handles under each set of label values.
// MetricFamily<Series> is the one implementation of the three kinds (CounterFamily, GaugeFamily,
// HistogramFamily); Registry (registry.h) makes them and states the registration rules.
//
// Contract of MetricFamily:
//  - with(label values): one value per label name, in labelNames() order; a different number
//    throws std::invalid_argument. Any bytes are accepted: invalid UTF-8 reaches the exposition
//    as U+FFFD, and TextSerializer escapes the rest. Returns a handle valid until the family
//    (that is, the Registry) goes, or until remove() of those label values. The first with()
//    of a label set builds prometheus::Labels and calls prometheus::Family<T>::Add under the
//    family's mutex; later ones are a shared lock and one hash lookup that allocates nothing.
//    Callers on hot paths cache the handle.
//  - Cardinality is bounded: at most maxSeries() label sets (kDefaultMaxSeries unless
//    setMaxSeries). Past it with() answers one shared overflow series whose label values are all
//    "other", and counts the call in sluice_metrics_series_dropped_total{family}.
//  - A family without labels has its one series from the start, so it renders 0.
//
// Thread-safety: every member may be called from any thread.

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

#include "server/metrics/series.h"

namespace sluice::metrics {

inline constexpr size_t kDefaultMaxSeries = 1000;
// Every label value of the overflow series.
inline constexpr std::string_view kOverflowLabelValue = "other";

// What every family kind shares, callback families included: identity and the collect hook.
class Family {
 public:
  virtual ~Family();
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const noexcept { return name_; }
  const std::string& help() const noexcept { return help_; }
  prometheus::MetricType type() const noexcept { return type_; }
  const std::vector<std::string>& labelNames() const noexcept { return label_names_; }

  // The family as TextSerializer takes it: name, help (escaped), type and every series, labels
  // in labelNames() order and series sorted by label values; no series at all when there is
  // none (HELP and TYPE only). Callback families call their callback here.
  virtual prometheus::MetricFamily collect() const = 0;

 protected:
  Family(std::string name, std::string help, prometheus::MetricType type, std::vector<std::string> label_names);
  // What collect() answers for what `native` collected.
  prometheus::MetricFamily shape(std::vector<prometheus::MetricFamily> collected) const;

 private:
  std::string name_;
  std::string help_;
  prometheus::MetricType type_;
  std::vector<std::string> label_names_;
};

namespace detail {
template <class Series>
class SeriesTable;
}

template <class Series>
class MetricFamily;
using CounterFamily = MetricFamily<Counter>;
using GaugeFamily = MetricFamily<Gauge>;
using HistogramFamily = MetricFamily<Histogram>;

template <class Series>
class MetricFamily final : public Family {
 public:
  using Native = typename Series::Native;

  // For Registry. `native`: the prometheus-cpp family, owned by the registry's
  // prometheus::Registry. `dropped`: the registry's sluice_metrics_series_dropped_total (nullptr
  // for that family itself). `bounds`: a histogram's, already checked; empty for other kinds.
  MetricFamily(prometheus::Family<Native>& native, std::string name, std::string help,
               std::vector<std::string> label_names, CounterFamily* dropped, std::vector<double> bounds = {});
  ~MetricFamily() override;

  Series& with(std::initializer_list<std::string_view> label_values);
  Series& with(std::span<const std::string_view> label_values);
  Series& with(std::span<const std::string> label_values);
  void setMaxSeries(size_t max_series);
  // Label sets with a series, the overflow series included.
  size_t seriesCount() const;
  prometheus::MetricFamily collect() const override;

  // Gauges: removes the series of `label_values` from the family and from prometheus-cpp
  // (prometheus::Family::Remove): an info gauge whose version changed, a breaker whose endpoint
  // left the catalog. Handles to it are invalid from then on: a caller that removes must not
  // keep handles of that family, and must serialise its with() and remove() of the same label
  // values. with() for the same values later makes a new series at 0. Unknown values: no-op.
  void remove(std::initializer_list<std::string_view> label_values)
    requires std::same_as<Series, Gauge>;
  void remove(std::span<const std::string_view> label_values)
    requires std::same_as<Series, Gauge>;
  // remove() for every series.
  void clear()
    requires std::same_as<Series, Gauge>;

  // Histograms: the upper bounds of the buckets, +Inf not included.
  const std::vector<double>& bounds() const noexcept
    requires std::same_as<Series, Histogram>
  {
    return bounds_;
  }

 private:
  prometheus::Family<Native>& native_;
  std::vector<double> bounds_;  // before table_: its histograms point into it
  std::unique_ptr<detail::SeriesTable<Series>> table_;
};

extern template class MetricFamily<Counter>;
extern template class MetricFamily<Gauge>;
extern template class MetricFamily<Histogram>;

}  // namespace sluice::metrics
