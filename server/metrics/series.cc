#include "server/metrics/series.h"

#include <algorithm>
#include <cmath>

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

}  // namespace sluice::metrics
