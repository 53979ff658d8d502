#pragma once
// The label values -> handle table of one metric family (family.cc): the cache in front of
// prometheus::Family<T>::Add that lets with() answer without building prometheus::Labels (a
// std::map) on every call, and the series limit with its overflow series. Internal to
// server/metrics. Thread-safe: a shared mutex guards the table; the series are prometheus-cpp's.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/labels.h>

#include "server/metrics/exposition.h"
#include "server/metrics/family.h"

namespace sluice::metrics::detail {

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

template <class Series>
class SeriesTable {
 public:
  using Native = typename Series::Native;

  SeriesTable(prometheus::Family<Native>& native, const Family& family, std::span<const double> bounds,
              CounterFamily* dropped, size_t max_series)
      : native_(native), family_(family), bounds_(bounds), dropped_(dropped), max_series_(max_series) {
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
      if (auto it = entries_.find(values); it != entries_.end()) return *it->second.handle;
      // The first drop (no dropped counter yet) takes the unique path to resolve it.
      const bool counted = dropped_ == nullptr || dropped_counter_ != nullptr;
      if (overflow_ != nullptr && counted && limitedCount() >= max_series_) return overflowed();
    }
    std::unique_lock lock(mutex_);
    if (auto it = entries_.find(values); it != entries_.end()) return *it->second.handle;
    const bool is_overflow_key = std::ranges::all_of(values, [](std::string_view v) { return v == kOverflowLabelValue; });
    if (is_overflow_key || limitedCount() < max_series_) {
      Entry& entry = insert(std::vector<std::string>(values.begin(), values.end()));
      if (is_overflow_key) overflow_ = entry.handle.get();
      return *entry.handle;
    }
    if (overflow_ == nullptr) {
      overflow_ = insert(std::vector<std::string>(values.size(), std::string(kOverflowLabelValue))).handle.get();
    }
    if (dropped_ != nullptr && dropped_counter_ == nullptr) dropped_counter_ = &dropped_->with({family_.name()});
    return overflowed();
  }

  // Removes the series of `values` from the table and from prometheus-cpp; false when unknown.
  bool erase(std::span<const std::string_view> values) {
    std::unique_lock lock(mutex_);
    auto it = entries_.find(values);
    if (it == entries_.end()) return false;
    eraseEntry(it);
    return true;
  }

  void eraseAll() {
    std::unique_lock lock(mutex_);
    while (!entries_.empty()) eraseEntry(entries_.begin());
  }

  void setMaxSeries(size_t max_series) {
    std::unique_lock lock(mutex_);
    max_series_ = max_series;
  }

  size_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    Native* native = nullptr;
    std::unique_ptr<Series> handle;
  };
  // NOTE: nodes never move, so handles outlive rehashing.
  using Map = std::unordered_map<std::vector<std::string>, Entry, LabelsHash, LabelsEqual>;

  // Entries other than the overflow series. Called with the mutex held.
  size_t limitedCount() const { return entries_.size() - (overflow_ != nullptr ? 1 : 0); }

  // The overflow series, the drop counted. Called with the mutex held, overflow_ set.
  Series& overflowed() {
    if (dropped_counter_ != nullptr) dropped_counter_->inc();
    return *overflow_;
  }

  Entry& insert(std::vector<std::string> values) {
    prometheus::Labels labels;
    for (size_t i = 0; i < values.size(); ++i) labels.emplace(family_.labelNames()[i], validUtf8(values[i]));
    Native* native = nullptr;
    if constexpr (std::same_as<Series, Histogram>) {
      native = &native_.Add(labels, std::vector<double>(bounds_.begin(), bounds_.end()));
    } else {
      native = &native_.Add(labels);
    }
    auto [it, inserted] = entries_.try_emplace(std::move(values));
    it->second.native = native;
    it->second.handle = std::make_unique<Series>(*native, bounds_);
    return it->second;
  }

  // Called with the unique lock held.
  void eraseEntry(typename Map::iterator it) {
    Native* native = it->second.native;
    if (it->second.handle.get() == overflow_) overflow_ = nullptr;
    entries_.erase(it);
    // Label values that differ only in invalid UTF-8 share one prometheus-cpp series.
    const bool shared = std::ranges::any_of(entries_, [&](const auto& item) { return item.second.native == native; });
    if (!shared) native_.Remove(native);
  }

  prometheus::Family<Native>& native_;
  const Family& family_;
  std::span<const double> bounds_;
  CounterFamily* const dropped_;  // nullptr for the dropped family itself
  mutable std::shared_mutex mutex_;
  Map entries_;
  size_t max_series_;
  Series* overflow_ = nullptr;
  Counter* dropped_counter_ = nullptr;
};

}  // namespace sluice::metrics::detail
