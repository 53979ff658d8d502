#include "server/metrics/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "server/metrics/sample_writer.h"
#include "server/metrics/series_table.h"

namespace sluice::metrics {

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

template <class Series>
MetricFamily<Series>& Registry::family(std::string_view name, std::string_view help,
                                       std::vector<std::string> label_names, std::vector<double> bounds) {
  constexpr MetricType type = kMetricTypeOf<Series>;
  std::lock_guard lock(state_->mutex);
  if (auto* family = state_->existing<MetricFamily<Series>>(name, type, label_names)) {
    if constexpr (type == MetricType::Histogram) {
      if (family->bounds() != bounds) {
        throw std::logic_error("histogram " + std::string(name) + " registered again with other bounds");
      }
    }
    return *family;
  }
  state_->check(name, type, label_names);
  auto family = std::make_unique<MetricFamily<Series>>(std::string(name), std::string(help), std::move(label_names),
                                                       state_->dropped, std::move(bounds));
  family->setMaxSeries(state_->default_max_series);
  return state_->add(std::move(family));
}

CounterFamily& Registry::counter(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  return family<Counter>(name, help, std::move(label_names), {});
}

GaugeFamily& Registry::gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
  return family<Gauge>(name, help, std::move(label_names), {});
}

HistogramFamily& Registry::histogram(std::string_view name, std::string_view help,
                                     std::vector<std::string> label_names, std::vector<double> bounds) {
  if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) bounds.pop_back();
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
      throw std::invalid_argument("histogram " + std::string(name) + ": bounds must be finite and strictly increasing");
    }
  }
  return family<Histogram>(name, help, std::move(label_names), std::move(bounds));
}

void Registry::callback(std::string_view name, std::string_view help, MetricType type,
                        std::vector<std::string> label_names, SamplesCallback callback) {
  std::lock_guard lock(state_->mutex);
  if (state_->by_name.contains(std::string(name))) {
    throw std::logic_error("callback metric " + std::string(name) + " registered twice");
  }
  state_->check(name, type, label_names);
  state_->add(std::make_unique<CallbackFamily>(std::string(name), std::string(help), type, std::move(label_names),
                                               std::move(callback)));
}

void Registry::gaugeCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                             SamplesCallback callback) {
  this->callback(name, help, MetricType::Gauge, std::move(label_names), std::move(callback));
}

void Registry::counterCallback(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                               SamplesCallback callback) {
  this->callback(name, help, MetricType::Counter, std::move(label_names), std::move(callback));
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
