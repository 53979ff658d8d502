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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::metrics {

// The Content-Type of render()'s output.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr size_t kDefaultMaxSeries = 1000;
// Every label value of the overflow series.
inline constexpr std::string_view kOverflowLabelValue = "other";
// The registry's own family: with() calls answered by an overflow series, by family name.
inline constexpr std::string_view kSeriesDroppedName = "sluice_metrics_series_dropped_total";

enum class MetricType { Counter, Gauge, Histogram };
std::string_view toString(MetricType type);  // "counter", "gauge", "histogram"

// A value that only goes up. Lock-free.
class Counter {
 public:
  void inc() noexcept { whole_.fetch_add(1, std::memory_order_relaxed); }
  void inc(uint64_t n) noexcept { whole_.fetch_add(n, std::memory_order_relaxed); }
  // Any non-negative amount, fractions included. Negative amounts and NaN are ignored: a
  // counter never goes down.
  void add(double amount) noexcept {
    if (amount >= 0) fraction_.fetch_add(amount, std::memory_order_relaxed);
  }
  double value() const noexcept {
    return static_cast<double>(whole_.load(std::memory_order_relaxed)) +
           fraction_.load(std::memory_order_relaxed);
  }

 private:
  // NOTE: whole increments (the common case) are one fetch_add, not a compare-exchange loop.
  std::atomic<uint64_t> whole_{0};
  std::atomic<double> fraction_{0};
};

// A value that goes up and down. Lock-free.
class Gauge {
 public:
  void set(double value) noexcept { value_.store(value, std::memory_order_relaxed); }
  void inc(double amount = 1) noexcept { value_.fetch_add(amount, std::memory_order_relaxed); }
  void dec(double amount = 1) noexcept { value_.fetch_sub(amount, std::memory_order_relaxed); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in buckets by upper bound (`le`, inclusive) plus +Inf, with their sum.
// Lock-free. A scrape concurrent with observe() may see the count and the sum one observation
// apart; bucket counts are always cumulative and end at the count.
class Histogram {
 public:
  // `bounds`: strictly increasing and finite; must outlive the histogram (the family owns it).
  explicit Histogram(std::span<const double> bounds);

  // NaN is counted in the +Inf bucket only (and makes the sum NaN).
  void observe(double value) noexcept;

  std::span<const double> bounds() const noexcept { return bounds_; }
  // One count per bound, then +Inf; not cumulative.
  uint64_t bucketCount(size_t index) const noexcept {
    return counts_[index].load(std::memory_order_relaxed);
  }
  uint64_t count() const noexcept;
  double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }

 private:
  std::span<const double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // bounds_.size() + 1
  std::atomic<double> sum_{0};
};

namespace detail {
template <class Series>
class SeriesTable;
}

class CounterFamily;

// What the three family kinds share: identity and the render hook.
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

// The families are made by Registry (their constructors are public for it, not for callers).
// with(): one value per label name, in labelNames() order; a different number throws
// std::invalid_argument. Any bytes are accepted; render() escapes them and replaces invalid
// UTF-8 with U+FFFD.
class CounterFamily final : public Family {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names,
                CounterFamily* dropped);
  ~CounterFamily() override;

  Counter& with(std::initializer_list<std::string_view> label_values);
  Counter& with(std::span<const std::string_view> label_values);
  Counter& with(std::span<const std::string> label_values);
  void setMaxSeries(size_t max_series);
  size_t seriesCount() const;
  void render(std::string& out) const override;

 private:
  std::unique_ptr<detail::SeriesTable<Counter>> table_;
};

class GaugeFamily final : public Family {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names,
              CounterFamily* dropped);
  ~GaugeFamily() override;

  Gauge& with(std::initializer_list<std::string_view> label_values);
  Gauge& with(std::span<const std::string_view> label_values);
  Gauge& with(std::span<const std::string> label_values);
  // Hides a series from render() (an info gauge whose version changed, a breaker whose endpoint
  // left the catalog) and sets it to 0. References stay valid; with() for the same values shows
  // the series again. A hidden series does not count towards max_series but keeps its memory
  // (a few hundred bytes). Unknown values: no-op.
  void remove(std::initializer_list<std::string_view> label_values);
  void remove(std::span<const std::string_view> label_values);
  // remove() for every series.
  void clear();
  void setMaxSeries(size_t max_series);
  size_t seriesCount() const;
  void render(std::string& out) const override;

 private:
  std::unique_ptr<detail::SeriesTable<Gauge>> table_;
};

class HistogramFamily final : public Family {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> bounds, CounterFamily* dropped);
  ~HistogramFamily() override;

  Histogram& with(std::initializer_list<std::string_view> label_values);
  Histogram& with(std::span<const std::string_view> label_values);
  Histogram& with(std::span<const std::string> label_values);
  const std::vector<double>& bounds() const noexcept { return bounds_; }
  void setMaxSeries(size_t max_series);
  size_t seriesCount() const;
  void render(std::string& out) const override;

 private:
  std::vector<double> bounds_;  // before table_: its histograms point into it
  std::unique_ptr<detail::SeriesTable<Histogram>> table_;
};

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
  std::unique_ptr<State> state_;
};

}  // namespace sluice::metrics
