#include "server/dispatch/strategy.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

namespace sluice::dispatch {

size_t drawByWeight(const std::vector<int>& weights, double draw) {
  assert(!weights.empty());
  int64_t total = 0;
  for (int weight : weights) total += std::max(weight, 0);
  if (total <= 0) return 0;
  const double clamped = std::clamp(draw, 0.0, 1.0);
  // Integer target so that the boundaries are exact: weights 3 and 1 give [0, 3) and [3, 4).
  int64_t target = static_cast<int64_t>(clamped * static_cast<double>(total));
  if (target >= total) target = total - 1;
  for (size_t index = 0; index < weights.size(); ++index) {
    target -= std::max(weights[index], 0);
    if (target < 0) return index;
  }
  return weights.size() - 1;
}

std::vector<Attempt> orderAttempts(std::vector<Attempt> attempts, catalog::Strategy strategy, double draw) {
  std::vector<Attempt> probes;
  std::vector<Attempt> closed;
  std::vector<Attempt> open;
  for (auto& attempt : attempts) {
    switch (attempt.breaker) {
      case BreakerState::Closed: closed.push_back(attempt); break;
      case BreakerState::HalfOpen: probes.push_back(attempt); break;
      case BreakerState::Open: open.push_back(attempt); break;
    }
  }

  std::vector<Attempt> result;
  result.reserve(attempts.size());
  switch (strategy) {
    case catalog::Strategy::Ordered:
      for (auto& attempt : attempts) {
        if (attempt.breaker != BreakerState::Open) result.push_back(attempt);
      }
      break;

    case catalog::Strategy::Weighted: {
      result = probes;
      if (!closed.empty()) {
        std::vector<int> weights;
        for (const auto& attempt : closed) weights.push_back(attempt.weight);
        const size_t first = drawByWeight(weights, draw);
        result.push_back(closed[first]);
        closed.erase(closed.begin() + static_cast<std::ptrdiff_t>(first));
        std::stable_sort(closed.begin(), closed.end(),
                         [](const Attempt& a, const Attempt& b) { return a.weight > b.weight; });
        result.insert(result.end(), closed.begin(), closed.end());
      }
      break;
    }

    case catalog::Strategy::LeastBusy:
      result = probes;
      std::stable_sort(closed.begin(), closed.end(),
                       [](const Attempt& a, const Attempt& b) { return a.in_flight < b.in_flight; });
      result.insert(result.end(), closed.begin(), closed.end());
      break;
  }
  result.insert(result.end(), open.begin(), open.end());
  return result;
}

}  // namespace sluice::dispatch
