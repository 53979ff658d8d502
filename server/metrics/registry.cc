#include "server/metrics/registry.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <prometheus/check_names.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/text_serializer.h>

#include "server/metrics/exposition.h"

namespace sluice::metrics {

namespace {

// The sample names a family writes; no two families may share one.
std::vector<std::string> sampleNames(std::string_view name, prometheus::MetricType type) {
  if (type != prometheus::MetricType::Histogram) return {std::string(name)};
  return {std::string(name), std::string(name) + "_bucket", std::string(name) + "_sum", std::string(name) + "_count"};
}

// prometheus::BuildCounter() and its siblings for the native type T.
template <class T>
prometheus::Family<T>& buildNative(prometheus::Registry& registry, std::string_view name, std::string_view help) {
  if constexpr (std::is_same_v<T, prometheus::Counter>) {
    return prometheus::BuildCounter().Name(std::string(name)).Help(escapeHelp(help)).Register(registry);
  } else if constexpr (std::is_same_v<T, prometheus::Gauge>) {
    return prometheus::BuildGauge().Name(std::string(name)).Help(escapeHelp(help)).Register(registry);
  } else {
    return prometheus::BuildHistogram().Name(std::string(name)).Help(escapeHelp(help)).Register(registry);
  }
}

}  // namespace

struct Registry::State {
  // NOTE: Throw, not Merge: this class answers a repeated registration itself, so a repeat
  // reaching prometheus-cpp is a bug here.
  prometheus::Registry native{prometheus::Registry::InsertBehavior::Throw};
  mutable std::mutex mutex;
  std::vector<std::unique_ptr<Family>> families;  // registration order
  std::unordered_map<std::string, Family*> by_name;
  std::unordered_set<std::string> sample_names;
  size_t default_max_series = kDefaultMaxSeries;
  CounterFamily* dropped = nullptr;

  // Validates a new family; throws std::invalid_argument. Called with `mutex` held.
  void check(std::string_view name, prometheus::MetricType type, const std::vector<std::string>& label_names) const {
    if (!prometheus::CheckMetricName(std::string(name))) {
      throw std::invalid_argument("invalid metric name: \"" + std::string(name) + "\"");
    }
    if (type == prometheus::MetricType::Counter && (name.size() <= 6 || !name.ends_with("_total"))) {
      throw std::invalid_argument("counter name must end in _total: " + std::string(name));
    }
    std::unordered_set<std::string_view> seen;
    for (const std::string& label : label_names) {
      if (!prometheus::CheckLabelName(label)) {
        throw std::invalid_argument("invalid label name \"" + label + "\" in metric " + std::string(name));
      }
      if (type == prometheus::MetricType::Histogram && label == "le") {
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
  F* existing(std::string_view name, const std::vector<std::string>& label_names) const {
    auto it = by_name.find(std::string(name));
    if (it == by_name.end()) return nullptr;
    auto* family = dynamic_cast<F*>(it->second);
    if (family == nullptr || family->labelNames() != label_names) {
      throw std::logic_error("metric " + std::string(name) + " registered again with another type or labels");
    }
    return family;
  }

  template <class Series>
  MetricFamily<Series>& family(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                               std::vector<double> bounds) {
    using Native = typename Series::Native;
    std::lock_guard lock(mutex);
    if (auto* family = existing<MetricFamily<Series>>(name, label_names)) {
      if constexpr (std::is_same_v<Series, Histogram>) {
        if (family->bounds() != bounds) {
          throw std::logic_error("histogram " + std::string(name) + " registered again with other bounds");
        }
      }
      return *family;
    }
    check(name, Native::metric_type, label_names);
    auto family = std::make_unique<MetricFamily<Series>>(buildNative<Native>(native, name, help), std::string(name),
                                                         std::string(help), std::move(label_names), dropped,
                                                         std::move(bounds));
    family->setMaxSeries(default_max_series);
    return add(std::move(family));
  }

  template <class Native>
  void callback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                SamplesCallback callback) {
    std::lock_guard lock(mutex);
    if (by_name.contains(std::string(name))) {
      throw std::logic_error("callback metric " + std::string(name) + " registered twice");
    }
    check(name, Native::metric_type, label_names);
    add(std::make_unique<CallbackFamily<Native>>(buildNative<Native>(native, name, help), std::string(name),
                                                 std::string(help), std::move(label_names), std::move(callback)));
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
  return state_->family<Counter>(name, help, std::move(label_names), {});
}

GaugeFamily& Registry::gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  return state_->family<Gauge>(name, help, std::move(label_names), {});
}

HistogramFamily& Registry::histogram(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names, std::vector<double> bounds) {
  if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) bounds.pop_back();
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
      throw std::invalid_argument("histogram " + std::string(name) + ": bounds must be finite and strictly increasing");
    }
  }
  return state_->family<Histogram>(name, help, std::move(label_names), std::move(bounds));
}

void Registry::gaugeCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                             SamplesCallback callback) {
  state_->callback<prometheus::Gauge>(name, help, std::move(label_names), std::move(callback));
}

void Registry::counterCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                               SamplesCallback callback) {
  state_->callback<prometheus::Counter>(name, help, std::move(label_names), std::move(callback));
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
  // without it and may even register families (seen by the next render).
  std::vector<prometheus::MetricFamily> collected;
  collected.reserve(families.size());
  for (const Family* family : families) collected.push_back(family->collect());
  return prometheus::TextSerializer().Serialize(collected);
}

prometheus::Registry& Registry::native() noexcept { return state_->native; }

}  // namespace sluice::metrics
