#pragma once
// Deadlines as the millisecond timeouts of epoll_wait(2) and poll(2).

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "server/net/fiber.h"

namespace sluice::net::fiber {

// Milliseconds from now until `deadline`, rounded up so a wait never ends early; 0 once it has
// passed, -1 (forever) for kNever, at most a day.
inline int millisUntil(Clock::time_point deadline) {
  if (deadline == kNever) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 24 * 3600 * 1000));
}

}  // namespace sluice::net::fiber
