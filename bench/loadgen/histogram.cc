#include "bench/loadgen/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sluice::bench {

namespace {
constexpr int kSubBucketBits = 11;                        // 2048 sub-buckets in bucket 0
constexpr int64_t kSubBucketHalf = 1 << (kSubBucketBits - 1);
constexpr int kBuckets = 64 - kSubBucketBits + 1;
}  // namespace

Histogram::Histogram() : counts_((kBuckets + 1) * kSubBucketHalf, 0) {}

size_t Histogram::indexOf(int64_t nanos) {
  const auto value = static_cast<uint64_t>(std::max<int64_t>(nanos, 0));
  const int msb = 63 - std::countl_zero(value | 1);
  const int bucket = std::max(0, msb - (kSubBucketBits - 1));
  const auto sub = static_cast<int64_t>(value >> bucket);  // in [1024, 2048) once bucket > 0
  return static_cast<size_t>(bucket * kSubBucketHalf + sub);
}

int64_t Histogram::highestEquivalent(size_t index) {
  const auto i = static_cast<int64_t>(index);
  int64_t bucket = i / kSubBucketHalf - 1;
  int64_t sub = i % kSubBucketHalf + kSubBucketHalf;
  if (bucket < 0) {
    bucket = 0;
    sub = i;
  }
  return ((sub + 1) << bucket) - 1;
}

void Histogram::record(int64_t nanos) {
  nanos = std::max<int64_t>(nanos, 0);
  ++counts_[indexOf(nanos)];
  ++count_;
  sum_ += nanos;
  min_ = std::min(min_, nanos);
  max_ = std::max(max_, nanos);
}

void Histogram::merge(const Histogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

int64_t Histogram::percentile(double percentile) const {
  if (count_ == 0) return 0;
  const auto wanted = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(percentile / 100.0 * static_cast<double>(count_))));
  int64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) return std::min(highestEquivalent(i), max_);
  }
  return max_;
}

}  // namespace sluice::bench
