#pragma once
// What a load thread measured; threads' stats are merged into one for the report.

#include <cstdint>
#include <map>

#include "bench/loadgen/histogram.h"

namespace sluice::bench {

struct Stats {
  Histogram latency;       // request sent (open loop: scheduled) to last body byte
  Histogram ttft;          // request sent (or scheduled) to the first token event
  Histogram token_gap;     // between consecutive token events of one stream
  int64_t completed = 0;   // full answers, any status, recorded in the window
  int64_t completed_all = 0;  // full answers including the warm-up and the drain (for CPU per request)
  int64_t ok = 0;          // of which 2xx
  std::map<int, int64_t> statuses;
  int64_t connect_errors = 0;
  int64_t read_errors = 0;  // reset, closed mid-answer, malformed
  int64_t timeouts = 0;
  int64_t unsent = 0;       // open loop: scheduled in the window, never sent (no free connection)
  int64_t reconnects = 0;
  int64_t streams = 0;      // 2xx streams completed
  int64_t dropped_streams = 0;  // fewer token events than expected, or cut
  int64_t frames = 0;       // token events seen
  int64_t late_frames = 0;
  int64_t backlog_max = 0;  // open loop: most requests waiting for a free connection
  int64_t body_bytes = 0;

  void merge(const Stats& other);
  int64_t failures() const;
};

}  // namespace sluice::bench
