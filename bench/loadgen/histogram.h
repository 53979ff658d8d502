#pragma once
// A latency histogram after HdrHistogram: log-linear buckets with 1024 linear sub-buckets per
// power of two, so every recorded value is kept to within 0.1 % from 1 ns to about an hour.
// Values are nanoseconds. Not thread-safe: each load thread keeps its own and they are merged.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::bench {

class Histogram {
 public:
  Histogram();

  void record(int64_t nanos);
  void merge(const Histogram& other);

  int64_t count() const { return count_; }
  int64_t max() const { return max_; }
  int64_t min() const { return count_ == 0 ? 0 : min_; }
  double mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  // The smallest recorded value v such that `percentile` % of the values are <= v (within the
  // bucket's precision, reported as the bucket's upper bound). 0 when empty.
  int64_t percentile(double percentile) const;

 private:
  static size_t indexOf(int64_t nanos);
  static int64_t highestEquivalent(size_t index);

  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  int64_t sum_ = 0;
  int64_t min_ = INT64_MAX;
  int64_t max_ = 0;
};

}  // namespace sluice::bench
