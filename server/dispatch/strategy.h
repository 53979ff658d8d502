#pragma once
// Orders a route's attempts for one request by the route's strategy and the endpoints' health.
// Pure: the same attempts, strategy and draw give the same order.
//
// Every strategy keeps these rules (CATALOG.md "Dispatch rules"):
// - an attempt whose breaker is Open goes after every other one, in declared order; when every
//   attempt is Open, all of them stay, in declared order: a request is never left unsent;
// - nothing is dropped: the result is a permutation of the input.
//
// ordered     declared order (a HalfOpen endpoint keeps its place: that request is its probe).
// weighted    HalfOpen probes first, then one attempt drawn by weight among the Closed ones
//             (`draw` uniform in [0, 1)), then the other Closed ones by descending weight (ties in
//             declared order), then the Open ones.
// least_busy  HalfOpen probes first, then the Closed ones by fewest in flight (ties in declared
//             order), then the Open ones.
//
// NOTE: for weighted and least_busy a probe-ready endpoint goes first. Were it drawn or ranked
// like the Closed ones, a recovered endpoint in a pool would wait for the others to fail before
// anyone probed it, and would stay out of rotation. Only one request wins the probe
// (Breaker::apply(Probe) at send time); the others defer it and move on.

#include <vector>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"

namespace sluice::dispatch {

std::vector<Attempt> orderAttempts(std::vector<Attempt> attempts, catalog::Strategy strategy, double draw);

// The index in `weights` (all positive) that `draw` in [0, 1) selects, each with probability
// weight / sum. A draw outside [0, 1) is clamped into it. Precondition: weights is not empty.
size_t drawByWeight(const std::vector<int>& weights, double draw);

}  // namespace sluice::dispatch
