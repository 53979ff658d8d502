#pragma once
// The handles the families hand out: Counter, Gauge and Histogram, each a thin view of one
// prometheus-cpp series (prometheus::Counter, Gauge, Histogram) with the calls the server makes.
// Made by the families (family.h); a handle lives as long as its series (see family.h).
//
// Thread-safety: any thread may update or read a handle. Counter and Gauge updates are lock-free
// (an atomic compare-exchange on a double); Histogram::observe takes the series' own mutex
// (prometheus-cpp's), never a family or registry lock.

#include <cstddef>
#include <cstdint>
#include <span>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

namespace sluice::metrics {

// A value that only goes up.
class Counter {
 public:
  using Native = prometheus::Counter;
  Counter(Native& native, std::span<const double> /*bounds*/) noexcept : native_(native) {}

  void inc() noexcept { native_.Increment(); }
  void inc(uint64_t n) noexcept { native_.Increment(static_cast<double>(n)); }
  // Any non-negative amount, fractions included. Negative amounts and NaN are ignored: a
  // counter never goes down.
  void add(double amount) noexcept {
    if (amount >= 0) native_.Increment(amount);
  }
  // NOTE: a double, as prometheus-cpp keeps it: integers are exact up to 2^53.
  double value() const noexcept { return native_.Value(); }

 private:
  Native& native_;
};

// A value that goes up and down.
class Gauge {
 public:
  using Native = prometheus::Gauge;
  Gauge(Native& native, std::span<const double> /*bounds*/) noexcept : native_(native) {}

  void set(double value) noexcept { native_.Set(value); }
  void inc(double amount = 1) noexcept { native_.Increment(amount); }
  void dec(double amount = 1) noexcept { native_.Decrement(amount); }
  double value() const noexcept { return native_.Value(); }

 private:
  Native& native_;
};

// Observations counted in buckets by upper bound (`le`, inclusive) plus +Inf, with their sum.
class Histogram {
 public:
  using Native = prometheus::Histogram;
  // `bounds`: the family's, which outlive the handle.
  Histogram(Native& native, std::span<const double> bounds) noexcept : native_(native), bounds_(bounds) {}

  // NaN is counted in the +Inf bucket only (and makes the sum NaN); prometheus-cpp alone would
  // count it in the first bucket.
  void observe(double value) noexcept;

  std::span<const double> bounds() const noexcept { return bounds_; }
  // Read back from a snapshot of the series (tests, diagnostics; not for hot paths).
  // bucketCount: one count per bound, then +Inf; not cumulative.
  uint64_t bucketCount(size_t index) const;
  uint64_t count() const;
  double sum() const;

 private:
  Native& native_;
  std::span<const double> bounds_;
};

}  // namespace sluice::metrics
