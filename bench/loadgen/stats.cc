#include "bench/loadgen/stats.h"

#include <algorithm>

namespace sluice::bench {

void Stats::merge(const Stats& other) {
  latency.merge(other.latency);
  ttft.merge(other.ttft);
  token_gap.merge(other.token_gap);
  completed += other.completed;
  completed_all += other.completed_all;
  ok += other.ok;
  for (const auto& [status, count] : other.statuses) statuses[status] += count;
  connect_errors += other.connect_errors;
  read_errors += other.read_errors;
  timeouts += other.timeouts;
  unsent += other.unsent;
  reconnects += other.reconnects;
  streams += other.streams;
  dropped_streams += other.dropped_streams;
  frames += other.frames;
  late_frames += other.late_frames;
  backlog_max = std::max(backlog_max, other.backlog_max);
  body_bytes += other.body_bytes;
}

int64_t Stats::failures() const {
  return (completed - ok) + connect_errors + read_errors + timeouts + unsent + dropped_streams;
}

}  // namespace sluice::bench
