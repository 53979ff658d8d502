#include "tools/mock-provider/stats.h"

namespace sluice::mock {

void Stats::recordRequest(const ReceivedRequest& request, std::uint64_t seq, std::string_view wire) {
  nlohmann::ordered_json entry = toJson(request);
  entry["seq"] = seq;
  entry["wire"] = wire;
  std::lock_guard lock(mutex_);
  Counters& counters = paths_[request.path];
  ++counters.requests;
  counters.bytes_received += request.body.size();
  history_.push_back(std::move(entry));
  while (history_.size() > history_limit_) history_.pop_front();
}

void Stats::recordStatus(const std::string& path, int status) {
  std::lock_guard lock(mutex_);
  ++paths_[path].statuses[status];
}

void Stats::recordStreamStart(const std::string& path) {
  std::lock_guard lock(mutex_);
  ++paths_[path].streams_started;
}

void Stats::recordEvent(const std::string& path) {
  std::lock_guard lock(mutex_);
  ++paths_[path].events_sent;
}

void Stats::recordStall(const std::string& path) {
  std::lock_guard lock(mutex_);
  ++paths_[path].streams_stalled;
}

void Stats::recordDelayAbandoned(const std::string& path) {
  std::lock_guard lock(mutex_);
  ++paths_[path].delays_abandoned;
}

void Stats::recordStreamEnd(const std::string& path, StreamEnd end) {
  std::lock_guard lock(mutex_);
  Counters& counters = paths_[path];
  switch (end) {
    case StreamEnd::Completed: ++counters.streams_completed; break;
    case StreamEnd::ClientGone: ++counters.streams_aborted; break;
    case StreamEnd::Reset: ++counters.streams_reset; break;
    case StreamEnd::Stopped: break;
  }
}

nlohmann::ordered_json Stats::countersJson(const Counters& counters, bool with_statuses) {
  nlohmann::ordered_json json{{"requests", counters.requests},
                              {"bytes_received", counters.bytes_received},
                              {"streams_started", counters.streams_started},
                              {"streams_completed", counters.streams_completed},
                              {"streams_aborted", counters.streams_aborted},
                              {"streams_reset", counters.streams_reset},
                              {"streams_stalled", counters.streams_stalled},
                              {"events_sent", counters.events_sent},
                              {"delays_abandoned", counters.delays_abandoned}};
  if (with_statuses) {
    nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
    for (const auto& [status, count] : counters.statuses) statuses[std::to_string(status)] = count;
    json["statuses"] = statuses;
  }
  return json;
}

nlohmann::ordered_json Stats::statsJson() const {
  std::lock_guard lock(mutex_);
  nlohmann::ordered_json paths = nlohmann::ordered_json::object();
  Counters totals;
  for (const auto& [path, counters] : paths_) {
    paths[path] = countersJson(counters, true);
    totals.requests += counters.requests;
    totals.bytes_received += counters.bytes_received;
    totals.streams_started += counters.streams_started;
    totals.streams_completed += counters.streams_completed;
    totals.streams_aborted += counters.streams_aborted;
    totals.streams_reset += counters.streams_reset;
    totals.streams_stalled += counters.streams_stalled;
    totals.delays_abandoned += counters.delays_abandoned;
    totals.events_sent += counters.events_sent;
  }
  return {{"paths", paths}, {"totals", countersJson(totals, false)}};
}

std::optional<nlohmann::ordered_json> Stats::lastJson() const {
  std::lock_guard lock(mutex_);
  if (history_.empty()) return std::nullopt;
  return history_.back();
}

nlohmann::ordered_json Stats::historyJson() const {
  std::lock_guard lock(mutex_);
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& entry : history_) array.push_back(entry);
  return array;
}

void Stats::reset() {
  std::lock_guard lock(mutex_);
  paths_.clear();
  history_.clear();
}

}  // namespace sluice::mock
