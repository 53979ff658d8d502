#include "server/metrics/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "server/metrics/exposition.h"

namespace sluice::metrics {

std::string_view toString(MetricType type) {
  switch (type) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Histogram: return "histogram";
  }
  return "untyped";
}

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds), counts_(std::make_unique<std::atomic<uint64_t>[]>(bounds.size() + 1)) {}

void Histogram::observe(double value) noexcept {
  // lower_bound finds the first bound >= value: the `le` bucket. NaN compares false with
  // everything and would land in the first bucket, so it goes to +Inf explicitly.
  size_t index = bounds_.size();
  if (!std::isnan(value)) {
    index = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  }
  counts_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

uint64_t Histogram::count() const noexcept {
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) total += bucketCount(i);
  return total;
}

Family::Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(label_names)) {}

Family::~Family() = default;

namespace detail {

// Hash and equality of label-value lists; transparent so that a lookup by string_views
// allocates nothing.
struct LabelsHash {
  using is_transparent = void;
  template <class Values>
  size_t operator()(const Values& values) const {
    size_t hash = values.size();
    for (std::string_view value : values) {
      hash ^= std::hash<std::string_view>{}(value) + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    }
    return hash;
  }
};

struct LabelsEqual {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::ranges::equal(a, b, [](std::string_view x, std::string_view y) { return x == y; });
  }
};

// Orders label-value lists lexicographically (render order).
struct LabelsLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](std::string_view x, std::string_view y) { return x < y; });
  }
};

// The label values → series table of one family. Series are never freed before the table, so
// references handed out stay valid; hidden series (GaugeFamily::remove) are skipped by render
// and do not count towards max_series.
// NOTE: a hidden series keeps its memory (a few hundred bytes) so that cached references stay
// valid; a gauge whose label values keep changing (catalog versions) grows by that much per value.
template <class Series>
class SeriesTable {
 public:
  using Make = std::function<std::unique_ptr<Series>()>;

  SeriesTable(const Family& family, CounterFamily* dropped, size_t max_series, Make make)
      : family_(family), dropped_(dropped), max_series_(max_series), make_(std::move(make)) {
    if (family_.labelNames().empty()) with({});
  }

  Series& with(std::span<const std::string_view> values) {
    if (values.size() != family_.labelNames().size()) {
      throw std::invalid_argument("metric " + family_.name() + " takes " +
                                  std::to_string(family_.labelNames().size()) + " label values, got " +
                                  std::to_string(values.size()));
    }
    {
      std::shared_lock lock(mutex_);
      if (auto it = entries_.find(values); it != entries_.end()) return reveal(it->second);
      if (overflow_ != nullptr && limited_count_.load(std::memory_order_relaxed) >= max_series_) {
        if (dropped_counter_ != nullptr) dropped_counter_->inc();
        return *overflow_;
      }
    }
    std::unique_lock lock(mutex_);
    if (auto it = entries_.find(values); it != entries_.end()) return reveal(it->second);
    const bool is_overflow_key = std::ranges::all_of(values, [](std::string_view v) { return v == kOverflowLabelValue; });
    if (is_overflow_key || limited_count_.load(std::memory_order_relaxed) < max_series_) {
      Entry& entry = insert(std::vector<std::string>(values.begin(), values.end()));
      if (is_overflow_key) {
        overflow_ = entry.series.get();
      } else {
        limited_count_.fetch_add(1, std::memory_order_relaxed);
      }
      return *entry.series;
    }
    if (overflow_ == nullptr) {
      overflow_ = insert(std::vector<std::string>(values.size(), std::string(kOverflowLabelValue))).series.get();
    }
    if (dropped_ != nullptr && dropped_counter_ == nullptr) dropped_counter_ = &dropped_->with({family_.name()});
    if (dropped_counter_ != nullptr) dropped_counter_->inc();
    return *overflow_;
  }

  // The series for `values`, hidden from render; nullptr when there is none.
  Series* hide(std::span<const std::string_view> values) {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(values);
    if (it == entries_.end()) return nullptr;
    hide(it->second);
    return it->second.series.get();
  }

  template <class Fn>
  void hideAll(Fn&& on_hidden) {
    std::shared_lock lock(mutex_);
    for (auto& [values, entry] : entries_) {
      hide(entry);
      on_hidden(*entry.series);
    }
  }

  void setMaxSeries(size_t max_series) {
    std::unique_lock lock(mutex_);
    max_series_ = max_series;
  }

  size_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }

  // Calls fn(label values, series) for each visible series, sorted by label values.
  template <class Fn>
  void forEachVisible(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    std::vector<const typename Map::value_type*> visible;
    visible.reserve(entries_.size());
    for (const auto& item : entries_) {
      if (!item.second.hidden.load(std::memory_order_relaxed)) visible.push_back(&item);
    }
    std::ranges::sort(visible, LabelsLess{}, [](const auto* item) -> const auto& { return item->first; });
    for (const auto* item : visible) fn(item->first, *item->second.series);
  }

 private:
  struct Entry {
    std::unique_ptr<Series> series;
    std::atomic<bool> hidden{false};
  };
  // NOTE: hashed for the hot path (with() on every request); render() sorts, it runs per scrape.
  // Nodes never move, so the series and the key outlive rehashing.
  using Map = std::unordered_map<std::vector<std::string>, Entry, LabelsHash, LabelsEqual>;

  // hide() and reveal() run under the shared lock: the exchange makes exactly one caller adjust
  // the count when two race on the same series.
  Series& reveal(Entry& entry) {
    if (entry.hidden.load(std::memory_order_relaxed) && entry.hidden.exchange(false, std::memory_order_relaxed) &&
        entry.series.get() != overflow_) {
      limited_count_.fetch_add(1, std::memory_order_relaxed);
    }
    return *entry.series;
  }

  void hide(Entry& entry) {
    if (!entry.hidden.exchange(true, std::memory_order_relaxed) && entry.series.get() != overflow_) {
      limited_count_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  Entry& insert(std::vector<std::string> values) {
    auto [it, inserted] = entries_.try_emplace(std::move(values));
    it->second.series = make_();
    return it->second;
  }

  const Family& family_;
  CounterFamily* const dropped_;  // nullptr for the dropped family itself
  mutable std::shared_mutex mutex_;
  Map entries_;
  size_t max_series_;
  std::atomic<size_t> limited_count_{0};  // visible entries other than the overflow series
  Series* overflow_ = nullptr;
  Counter* dropped_counter_ = nullptr;
  Make make_;
};

}  // namespace detail

namespace {

std::vector<std::string_view> views(std::span<const std::string> values) {
  return {values.begin(), values.end()};
}

std::span<const std::string_view> asSpan(std::initializer_list<std::string_view> values) {
  return {values.begin(), values.size()};
}

void writeHeader(std::string& out, const Family& family) {
  out += "# HELP ";
  out += family.name();
  out += ' ';
  out += escapeHelp(family.help());
  out += "\n# TYPE ";
  out += family.name();
  out += ' ';
  out += toString(family.type());
  out += '\n';
}

void writeSample(std::string& out, std::string_view name, std::string_view suffix,
                 const std::vector<std::string>& label_names, const std::vector<std::string>& values,
                 std::string_view le, double value) {
  out += name;
  out += suffix;
  writeLabels(out, label_names, values, le);
  out += ' ';
  out += formatValue(value);
  out += '\n';
}

}  // namespace

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> label_names,
                             CounterFamily* dropped)
    : Family(std::move(name), std::move(help), MetricType::Counter, std::move(label_names)),
      table_(std::make_unique<detail::SeriesTable<Counter>>(*this, dropped, kDefaultMaxSeries,
                                                            [] { return std::make_unique<Counter>(); })) {}

CounterFamily::~CounterFamily() = default;

Counter& CounterFamily::with(std::initializer_list<std::string_view> label_values) {
  return table_->with(asSpan(label_values));
}
Counter& CounterFamily::with(std::span<const std::string_view> label_values) { return table_->with(label_values); }
Counter& CounterFamily::with(std::span<const std::string> label_values) { return table_->with(views(label_values)); }
void CounterFamily::setMaxSeries(size_t max_series) { table_->setMaxSeries(max_series); }
size_t CounterFamily::seriesCount() const { return table_->size(); }

void CounterFamily::render(std::string& out) const {
  writeHeader(out, *this);
  table_->forEachVisible([&](const std::vector<std::string>& values, const Counter& counter) {
    writeSample(out, name(), "", labelNames(), values, {}, counter.value());
  });
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names,
                         CounterFamily* dropped)
    : Family(std::move(name), std::move(help), MetricType::Gauge, std::move(label_names)),
      table_(std::make_unique<detail::SeriesTable<Gauge>>(*this, dropped, kDefaultMaxSeries,
                                                          [] { return std::make_unique<Gauge>(); })) {}

GaugeFamily::~GaugeFamily() = default;

Gauge& GaugeFamily::with(std::initializer_list<std::string_view> label_values) {
  return table_->with(asSpan(label_values));
}
Gauge& GaugeFamily::with(std::span<const std::string_view> label_values) { return table_->with(label_values); }
Gauge& GaugeFamily::with(std::span<const std::string> label_values) { return table_->with(views(label_values)); }

void GaugeFamily::remove(std::initializer_list<std::string_view> label_values) { remove(asSpan(label_values)); }

void GaugeFamily::remove(std::span<const std::string_view> label_values) {
  if (Gauge* gauge = table_->hide(label_values)) gauge->set(0);
}

void GaugeFamily::clear() {
  table_->hideAll([](Gauge& gauge) { gauge.set(0); });
}

void GaugeFamily::setMaxSeries(size_t max_series) { table_->setMaxSeries(max_series); }
size_t GaugeFamily::seriesCount() const { return table_->size(); }

void GaugeFamily::render(std::string& out) const {
  writeHeader(out, *this);
  table_->forEachVisible([&](const std::vector<std::string>& values, const Gauge& gauge) {
    writeSample(out, name(), "", labelNames(), values, {}, gauge.value());
  });
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> bounds, CounterFamily* dropped)
    : Family(std::move(name), std::move(help), MetricType::Histogram, std::move(label_names)),
      bounds_(std::move(bounds)),
      table_(std::make_unique<detail::SeriesTable<Histogram>>(
          *this, dropped, kDefaultMaxSeries, [this] { return std::make_unique<Histogram>(bounds_); })) {}

HistogramFamily::~HistogramFamily() = default;

Histogram& HistogramFamily::with(std::initializer_list<std::string_view> label_values) {
  return table_->with(asSpan(label_values));
}
Histogram& HistogramFamily::with(std::span<const std::string_view> label_values) { return table_->with(label_values); }
Histogram& HistogramFamily::with(std::span<const std::string> label_values) {
  return table_->with(views(label_values));
}
void HistogramFamily::setMaxSeries(size_t max_series) { table_->setMaxSeries(max_series); }
size_t HistogramFamily::seriesCount() const { return table_->size(); }

void HistogramFamily::render(std::string& out) const {
  writeHeader(out, *this);
  std::vector<std::string> les;
  les.reserve(bounds_.size() + 1);
  for (double bound : bounds_) les.push_back(formatValue(bound));
  les.emplace_back("+Inf");
  table_->forEachVisible([&](const std::vector<std::string>& values, const Histogram& histogram) {
    // Read the buckets once and derive the count from them, so that the +Inf bucket and _count
    // always agree and the buckets are cumulative even while observe() runs.
    uint64_t cumulative = 0;
    for (size_t i = 0; i < les.size(); ++i) {
      cumulative += histogram.bucketCount(i);
      writeSample(out, name(), "_bucket", labelNames(), values, les[i], static_cast<double>(cumulative));
    }
    writeSample(out, name(), "_sum", labelNames(), values, {}, histogram.sum());
    writeSample(out, name(), "_count", labelNames(), values, {}, static_cast<double>(cumulative));
  });
}

namespace {

// A family whose samples a callback reports at render time.
class CallbackFamily final : public Family {
 public:
  CallbackFamily(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
                 SamplesCallback callback)
      : Family(std::move(name), std::move(help), type, std::move(label_names)), callback_(std::move(callback)) {}

  void render(std::string& out) const override {
    writeHeader(out, *this);
    Samples samples = callback_();
    std::erase_if(samples, [&](const auto& sample) { return sample.first.size() != labelNames().size(); });
    std::ranges::stable_sort(samples, detail::LabelsLess{}, [](const auto& sample) -> const auto& { return sample.first; });
    const std::vector<std::string>* previous = nullptr;
    for (const auto& [values, value] : samples) {
      if (previous != nullptr && *previous == values) continue;  // a repeated label set: the first wins
      writeSample(out, name(), "", labelNames(), values, {}, value);
      previous = &values;
    }
  }

 private:
  SamplesCallback callback_;
};

bool validMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool validLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// The sample names a family writes; no two families may share one.
std::vector<std::string> sampleNames(std::string_view name, MetricType type) {
  if (type != MetricType::Histogram) return {std::string(name)};
  return {std::string(name), std::string(name) + "_bucket", std::string(name) + "_sum", std::string(name) + "_count"};
}

}  // namespace

struct Registry::State {
  mutable std::mutex mutex;
  std::vector<std::unique_ptr<Family>> families;  // registration order
  std::unordered_map<std::string, Family*> by_name;
  std::unordered_set<std::string> sample_names;
  size_t default_max_series = kDefaultMaxSeries;
  CounterFamily* dropped = nullptr;

  // Validates a new family; throws std::invalid_argument. Called with `mutex` held.
  void check(std::string_view name, MetricType type, const std::vector<std::string>& label_names) const {
    if (!validMetricName(name)) throw std::invalid_argument("invalid metric name: \"" + std::string(name) + "\"");
    if (type == MetricType::Counter && (name.size() <= 6 || !name.ends_with("_total"))) {
      throw std::invalid_argument("counter name must end in _total: " + std::string(name));
    }
    std::unordered_set<std::string_view> seen;
    for (const std::string& label : label_names) {
      if (!validLabelName(label)) {
        throw std::invalid_argument("invalid label name \"" + label + "\" in metric " + std::string(name));
      }
      if (type == MetricType::Histogram && label == "le") {
        throw std::invalid_argument("label name le is reserved in histogram " + std::string(name));
      }
      if (!seen.insert(label).second) {
        throw std::invalid_argument("label name " + label + " repeated in metric " + std::string(name));
      }
    }
    for (const std::string& sample : sampleNames(name, type)) {
      if (sample_names.contains(sample)) {
        throw std::invalid_argument("metric " + std::string(name) + " would write samples named " + sample +
                                    ", which another family writes");
      }
    }
  }

  template <class F>
  F& add(std::unique_ptr<F> family) {
    F& ref = *family;
    for (std::string& sample : sampleNames(ref.name(), ref.type())) sample_names.insert(std::move(sample));
    by_name.emplace(ref.name(), &ref);
    families.push_back(std::move(family));
    return ref;
  }

  // The family already registered as `name`, checked against the new registration; nullptr when
  // there is none. Throws std::logic_error on any difference.
  template <class F>
  F* existing(std::string_view name, MetricType type, const std::vector<std::string>& label_names) const {
    auto it = by_name.find(std::string(name));
    if (it == by_name.end()) return nullptr;
    auto* family = dynamic_cast<F*>(it->second);
    if (family == nullptr || it->second->type() != type || family->labelNames() != label_names) {
      throw std::logic_error("metric " + std::string(name) + " registered again with another type or labels");
    }
    return family;
  }
};

Registry::Registry() : state_(std::make_unique<State>()) {
  CounterFamily& dropped = counter(kSeriesDroppedName,
                                   "Label sets a metric family refused because it reached its series limit; "
                                   "they were counted in the family's overflow series whose labels are all \"other\".",
                                   {"family"});
  dropped.setMaxSeries(std::numeric_limits<size_t>::max());
  state_->dropped = &dropped;
}

Registry::~Registry() = default;

CounterFamily& Registry::counter(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  std::lock_guard lock(state_->mutex);
  if (auto* family = state_->existing<CounterFamily>(name, MetricType::Counter, label_names)) return *family;
  state_->check(name, MetricType::Counter, label_names);
  auto family = std::make_unique<CounterFamily>(std::string(name), std::string(help), std::move(label_names),
                                                state_->dropped);
  family->setMaxSeries(state_->default_max_series);
  return state_->add(std::move(family));
}

GaugeFamily& Registry::gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  std::lock_guard lock(state_->mutex);
  if (auto* family = state_->existing<GaugeFamily>(name, MetricType::Gauge, label_names)) return *family;
  state_->check(name, MetricType::Gauge, label_names);
  auto family = std::make_unique<GaugeFamily>(std::string(name), std::string(help), std::move(label_names),
                                              state_->dropped);
  family->setMaxSeries(state_->default_max_series);
  return state_->add(std::move(family));
}

HistogramFamily& Registry::histogram(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names, std::vector<double> bounds) {
  if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) bounds.pop_back();
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
      throw std::invalid_argument("histogram " + std::string(name) + ": bounds must be finite and strictly increasing");
    }
  }
  std::lock_guard lock(state_->mutex);
  if (auto* family = state_->existing<HistogramFamily>(name, MetricType::Histogram, label_names)) {
    if (family->bounds() != bounds) {
      throw std::logic_error("histogram " + std::string(name) + " registered again with other bounds");
    }
    return *family;
  }
  state_->check(name, MetricType::Histogram, label_names);
  auto family = std::make_unique<HistogramFamily>(std::string(name), std::string(help), std::move(label_names),
                                                  std::move(bounds), state_->dropped);
  family->setMaxSeries(state_->default_max_series);
  return state_->add(std::move(family));
}

void Registry::gaugeCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                             SamplesCallback callback) {
  std::lock_guard lock(state_->mutex);
  if (state_->by_name.contains(std::string(name))) {
    throw std::logic_error("callback metric " + std::string(name) + " registered twice");
  }
  state_->check(name, MetricType::Gauge, label_names);
  state_->add(std::make_unique<CallbackFamily>(std::string(name), std::string(help), MetricType::Gauge,
                                               std::move(label_names), std::move(callback)));
}

void Registry::counterCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                               SamplesCallback callback) {
  std::lock_guard lock(state_->mutex);
  if (state_->by_name.contains(std::string(name))) {
    throw std::logic_error("callback metric " + std::string(name) + " registered twice");
  }
  state_->check(name, MetricType::Counter, label_names);
  state_->add(std::make_unique<CallbackFamily>(std::string(name), std::string(help), MetricType::Counter,
                                               std::move(label_names), std::move(callback)));
}

void Registry::setDefaultMaxSeries(size_t max_series) {
  std::lock_guard lock(state_->mutex);
  state_->default_max_series = max_series;
}

std::string Registry::render() const {
  std::vector<const Family*> families;
  {
    std::lock_guard lock(state_->mutex);
    families.reserve(state_->families.size());
    for (const auto& family : state_->families) families.push_back(family.get());
  }
  // Families are never removed, so they outlive this call without the lock; callbacks run
  // unlocked and may even register families (seen by the next render).
  std::string out;
  out.reserve(families.size() * 256);
  for (const Family* family : families) family->render(out);
  return out;
}

}  // namespace sluice::metrics
