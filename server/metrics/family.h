#pragma once
// Metric families: a name, help text and label names, and the series under each set of label
// values. MetricFamily<Series> is the one implementation of the three kinds (CounterFamily,
// GaugeFamily, HistogramFamily); the contract of with(), series limits and render() is in
// registry.h, which makes the families.

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/metrics/series.h"

namespace sluice::metrics {

inline constexpr size_t kDefaultMaxSeries = 1000;
// Every label value of the overflow series.
inline constexpr std::string_view kOverflowLabelValue = "other";

// What every family kind shares, callback families included: identity and the render hook.
class Family {
 public:
  virtual ~Family();
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const noexcept { return name_; }
  const std::string& help() const noexcept { return help_; }
  MetricType type() const noexcept { return type_; }
  const std::vector<std::string>& labelNames() const noexcept { return label_names_; }

  // Appends HELP, TYPE and every sample line to `out`.
  virtual void render(std::string& out) const = 0;

 protected:
  Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names);

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
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

// The families are made by Registry (their constructors are public for it, not for callers).
// with(): one value per label name, in labelNames() order; a different number throws
// std::invalid_argument. Any bytes are accepted; render() escapes them and replaces invalid
// UTF-8 with U+FFFD.
template <class Series>
class MetricFamily final : public Family {
 public:
  // `dropped`: the registry's sluice_metrics_series_dropped_total (nullptr for that family
  // itself). `bounds`: a histogram's, already checked by Registry; empty for the other kinds.
  MetricFamily(std::string name, std::string help, std::vector<std::string> label_names, CounterFamily* dropped,
               std::vector<double> bounds = {});
  ~MetricFamily() override;

  Series& with(std::initializer_list<std::string_view> label_values);
  Series& with(std::span<const std::string_view> label_values);
  Series& with(std::span<const std::string> label_values);
  void setMaxSeries(size_t max_series);
  size_t seriesCount() const;
  void render(std::string& out) const override;

  // Gauges: hides a series from render() (an info gauge whose version changed, a breaker whose
  // endpoint left the catalog) and sets it to 0. References stay valid; with() for the same values
  // shows the series again. A hidden series does not count towards max_series but keeps its memory
  // (a few hundred bytes). Unknown values: no-op.
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
  std::vector<double> bounds_;  // before table_: its histograms point into it
  std::unique_ptr<detail::SeriesTable<Series>> table_;
};

extern template class MetricFamily<Counter>;
extern template class MetricFamily<Gauge>;
extern template class MetricFamily<Histogram>;

}  // namespace sluice::metrics
