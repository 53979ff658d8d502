#pragma once
// The values of a metric family's series: Counter, Gauge and Histogram. Every update is
// lock-free (atomics); any thread may update or read them. Made by the families (family.h).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace sluice::metrics {

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

// The MetricType of each series kind.
template <class Series>
inline constexpr MetricType kMetricTypeOf = MetricType::Counter;
template <>
inline constexpr MetricType kMetricTypeOf<Gauge> = MetricType::Gauge;
template <>
inline constexpr MetricType kMetricTypeOf<Histogram> = MetricType::Histogram;

}  // namespace sluice::metrics
