#pragma once
// One load thread: its own epoll loop and its share of the connections (and of the rate). All
// threads connect first, meet at a barrier, then share one clock: `warmup_s` unrecorded, then
// `duration_s` recorded, then a drain of the requests in flight (up to the request timeout).
//
// Closed loop (rate 0): every connection sends its next request as soon as the previous answer
// has ended. Open loop: requests are scheduled at fixed intervals whatever the answers do; a
// request that finds no free connection waits in a backlog, and its latency counts from when
// it was scheduled (so a stall is not hidden by the generator waiting for it).

#include <barrier>
#include <cstdint>

#include "bench/loadgen/options.h"
#include "bench/loadgen/stats.h"

namespace sluice::bench {

int64_t nowNs();

class LoadThread {
 public:
  LoadThread(const Options& options, int index, std::barrier<>& start_line);
  Stats run();

 private:
  struct Connection;
  const Options& options_;
  int index_;
  std::barrier<>& start_line_;
};

}  // namespace sluice::bench
