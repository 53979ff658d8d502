#include "tests/fakes/fake_quota_counters.h"

#include <stdexcept>

namespace sluice::fakes {

namespace {

void addTo(store::CounterTotals& totals, const store::CounterTotals& delta) {
  totals.requests += delta.requests;
  totals.input_tokens += delta.input_tokens;
  totals.output_tokens += delta.output_tokens;
  totals.cost_microdollars += delta.cost_microdollars;
}

}  // namespace

void FakeQuotaCounters::enter() {
  ++calls_;
  if (failing_) throw std::runtime_error("database unreachable");
}

bool FakeQuotaCounters::reserve(const std::vector<store::CounterKey>& keys, int64_t estimated_input_tokens,
                                const std::function<bool(const std::vector<store::CounterTotals>&)>& admit) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::CounterTotals> totals;
  for (const store::CounterKey& key : keys) {
    auto [at, created] = counters_.try_emplace(Key{key.scope_kind, key.scope_value, key.window_id, key.window_start},
                                               Counter{key.window_end, {}});
    totals.push_back(at->second.totals);
  }
  if (!admit(totals)) return false;
  for (const store::CounterKey& key : keys) {
    addTo(counters_.at(Key{key.scope_kind, key.scope_value, key.window_id, key.window_start}).totals,
          store::CounterTotals{1, estimated_input_tokens, 0, 0});
  }
  return true;
}

void FakeQuotaCounters::add(const std::vector<store::CounterKey>& keys, const store::CounterTotals& delta) {
  if (keys.empty()) return;
  std::lock_guard lock(mutex_);
  enter();
  for (const store::CounterKey& key : keys) {
    const auto found = counters_.find(Key{key.scope_kind, key.scope_value, key.window_id, key.window_start});
    if (found != counters_.end()) addTo(found->second.totals, delta);
  }
}

size_t FakeQuotaCounters::prune(store::TimePoint before) {
  std::lock_guard lock(mutex_);
  enter();
  return std::erase_if(counters_, [&](const auto& entry) { return entry.second.window_end < before; });
}

std::vector<store::CounterRow> FakeQuotaCounters::live(store::TimePoint now) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::CounterRow> rows;  // the map's order is the key order
  for (const auto& [key, counter] : counters_) {
    if (counter.window_end <= now) continue;
    const auto& [kind, value, window, start] = key;
    rows.push_back(store::CounterRow{store::CounterKey{kind, value, window, start, counter.window_end}, counter.totals});
  }
  return rows;
}

std::optional<store::CounterTotals> FakeQuotaCounters::totals(const std::string& scope_kind,
                                                              const std::string& scope_value,
                                                              const std::string& window_id) const {
  std::lock_guard lock(mutex_);
  std::optional<store::CounterTotals> found;
  for (const auto& [key, counter] : counters_) {
    if (std::get<0>(key) == scope_kind && std::get<1>(key) == scope_value && std::get<2>(key) == window_id) {
      if (!found) found.emplace();
      addTo(*found, counter.totals);
    }
  }
  return found;
}

size_t FakeQuotaCounters::counters() const {
  std::lock_guard lock(mutex_);
  return counters_.size();
}

size_t FakeQuotaCounters::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

void FakeQuotaCounters::setFailing(bool failing) {
  std::lock_guard lock(mutex_);
  failing_ = failing;
}

}  // namespace sluice::fakes
