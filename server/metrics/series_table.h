#pragma once
// The label values -> series table of one metric family (family.cc), and the hash, equality and
// order of label-value lists. Internal to server/metrics. Thread-safe: a shared mutex guards the
// table; the series themselves are atomics.

#include <algorithm>
#include <atomic>
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

#include "server/metrics/family.h"

namespace sluice::metrics {

namespace detail {

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

// Orders label-value lists lexicographically (render order).
struct LabelsLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](std::string_view x, std::string_view y) { return x < y; });
  }
};

// The label values → series table of one family. Series are never freed before the table, so
// references handed out stay valid; hidden series (GaugeFamily::remove) are skipped by render
// and do not count towards max_series.
// NOTE: a hidden series keeps its memory (a few hundred bytes) so that cached references stay
// valid; a gauge whose label values keep changing (catalog versions) grows by that much per value.
template <class Series>
class SeriesTable {
 public:
  using Make = std::function<std::unique_ptr<Series>()>;

  SeriesTable(const Family& family, CounterFamily* dropped, size_t max_series, Make make)
      : family_(family), dropped_(dropped), max_series_(max_series), make_(std::move(make)) {
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
      if (auto it = entries_.find(values); it != entries_.end()) return reveal(it->second);
      if (overflow_ != nullptr && limited_count_.load(std::memory_order_relaxed) >= max_series_) {
        if (dropped_counter_ != nullptr) dropped_counter_->inc();
        return *overflow_;
      }
    }
    std::unique_lock lock(mutex_);
    if (auto it = entries_.find(values); it != entries_.end()) return reveal(it->second);
    const bool is_overflow_key = std::ranges::all_of(values, [](std::string_view v) { return v == kOverflowLabelValue; });
    if (is_overflow_key || limited_count_.load(std::memory_order_relaxed) < max_series_) {
      Entry& entry = insert(std::vector<std::string>(values.begin(), values.end()));
      if (is_overflow_key) {
        overflow_ = entry.series.get();
      } else {
        limited_count_.fetch_add(1, std::memory_order_relaxed);
      }
      return *entry.series;
    }
    if (overflow_ == nullptr) {
      overflow_ = insert(std::vector<std::string>(values.size(), std::string(kOverflowLabelValue))).series.get();
    }
    if (dropped_ != nullptr && dropped_counter_ == nullptr) dropped_counter_ = &dropped_->with({family_.name()});
    if (dropped_counter_ != nullptr) dropped_counter_->inc();
    return *overflow_;
  }

  // The series for `values`, hidden from render; nullptr when there is none.
  Series* hide(std::span<const std::string_view> values) {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(values);
    if (it == entries_.end()) return nullptr;
    hide(it->second);
    return it->second.series.get();
  }

  template <class Fn>
  void hideAll(Fn&& on_hidden) {
    std::shared_lock lock(mutex_);
    for (auto& [values, entry] : entries_) {
      hide(entry);
      on_hidden(*entry.series);
    }
  }

  void setMaxSeries(size_t max_series) {
    std::unique_lock lock(mutex_);
    max_series_ = max_series;
  }

  size_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }

  // Calls fn(label values, series) for each visible series, sorted by label values.
  template <class Fn>
  void forEachVisible(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    std::vector<const typename Map::value_type*> visible;
    visible.reserve(entries_.size());
    for (const auto& item : entries_) {
      if (!item.second.hidden.load(std::memory_order_relaxed)) visible.push_back(&item);
    }
    std::ranges::sort(visible, LabelsLess{}, [](const auto* item) -> const auto& { return item->first; });
    for (const auto* item : visible) fn(item->first, *item->second.series);
  }

 private:
  struct Entry {
    std::unique_ptr<Series> series;
    std::atomic<bool> hidden{false};
  };
  // NOTE: hashed for the hot path (with() on every request); render() sorts, it runs per scrape.
  // Nodes never move, so the series and the key outlive rehashing.
  using Map = std::unordered_map<std::vector<std::string>, Entry, LabelsHash, LabelsEqual>;

  // hide() and reveal() run under the shared lock: the exchange makes exactly one caller adjust
  // the count when two race on the same series.
  Series& reveal(Entry& entry) {
    if (entry.hidden.load(std::memory_order_relaxed) && entry.hidden.exchange(false, std::memory_order_relaxed) &&
        entry.series.get() != overflow_) {
      limited_count_.fetch_add(1, std::memory_order_relaxed);
    }
    return *entry.series;
  }

  void hide(Entry& entry) {
    if (!entry.hidden.exchange(true, std::memory_order_relaxed) && entry.series.get() != overflow_) {
      limited_count_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  Entry& insert(std::vector<std::string> values) {
    auto [it, inserted] = entries_.try_emplace(std::move(values));
    it->second.series = make_();
    return it->second;
  }

  const Family& family_;
  CounterFamily* const dropped_;  // nullptr for the dropped family itself
  mutable std::shared_mutex mutex_;
  Map entries_;
  size_t max_series_;
  std::atomic<size_t> limited_count_{0};  // visible entries other than the overflow series
  Series* overflow_ = nullptr;
  Counter* dropped_counter_ = nullptr;
  Make make_;
};

}  // namespace detail

}  // namespace sluice::metrics
