#include "server/metrics/callback_family.h"

#include <type_traits>

#include <prometheus/labels.h>

#include "server/metrics/exposition.h"

namespace sluice::metrics {

template <class Native>
CallbackFamily<Native>::CallbackFamily(prometheus::Family<Native>& native, std::string name, std::string help,
                                       std::vector<std::string> label_names, SamplesCallback callback)
    : Family(std::move(name), std::move(help), Native::metric_type, std::move(label_names)),
      native_(native),
      callback_(std::move(callback)) {}

template <class Native>
CallbackFamily<Native>::~CallbackFamily() = default;

template <class Native>
prometheus::MetricFamily CallbackFamily<Native>::collect() const {
  std::lock_guard lock(mutex_);
  refresh();
  return shape(native_.Collect());
}

template <class Native>
void CallbackFamily<Native>::refresh() const {
  std::map<std::vector<std::string>, double> reported;
  for (auto& [values, value] : callback_()) {
    if (values.size() != labelNames().size()) continue;
    for (std::string& label_value : values) label_value = validUtf8(label_value);
    reported.try_emplace(std::move(values), value);  // a repeated label set: the first wins
  }
  for (auto it = live_.begin(); it != live_.end();) {
    if (reported.contains(it->first)) {
      ++it;
      continue;
    }
    native_.Remove(it->second);
    it = live_.erase(it);
  }
  for (const auto& [values, value] : reported) {
    Native*& series = live_[values];
    if constexpr (std::is_same_v<Native, prometheus::Counter>) {
      if (series != nullptr && value < series->Value()) {  // the source started again
        native_.Remove(series);
        series = nullptr;
      }
    }
    if (series == nullptr) {
      prometheus::Labels labels;
      for (size_t i = 0; i < values.size(); ++i) labels.emplace(labelNames()[i], values[i]);
      series = &native_.Add(labels);
    }
    if constexpr (std::is_same_v<Native, prometheus::Counter>) {
      if (value > series->Value()) series->Increment(value - series->Value());
    } else {
      series->Set(value);
    }
  }
}

template class CallbackFamily<prometheus::Gauge>;
template class CallbackFamily<prometheus::Counter>;

}  // namespace sluice::metrics
