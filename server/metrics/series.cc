#include "server/metrics/series.h"

#include <cmath>
#include <vector>

namespace sluice::metrics {

void Histogram::observe(double value) noexcept {
  if (!std::isnan(value)) {
    native_.Observe(value);
    return;
  }
  // prometheus-cpp finds the bucket with lower_bound, which puts NaN in the first one.
  std::vector<double> increments(bounds_.size() + 1, 0.0);
  increments.back() = 1;
  native_.ObserveMultiple(increments, value);
}

uint64_t Histogram::bucketCount(size_t index) const {
  const auto buckets = native_.Collect().histogram.bucket;
  if (index >= buckets.size()) return 0;
  const uint64_t below = index == 0 ? 0 : buckets[index - 1].cumulative_count;
  return buckets[index].cumulative_count - below;
}

uint64_t Histogram::count() const { return native_.Collect().histogram.sample_count; }

double Histogram::sum() const { return native_.Collect().histogram.sample_sum; }

}  // namespace sluice::metrics
