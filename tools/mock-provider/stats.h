#pragma once
// What the mock received and sent, per request path, for tests to assert on (/_mock/stats,
// /_mock/last, /_mock/requests). Thread-safe: every method takes one internal lock.

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/received_request.h"

namespace sluice::mock {

// How a stream ended.
enum class StreamEnd {
  Completed,   // every event written and the body terminated
  ClientGone,  // a write failed or the client closed while stalled: the client hung up
  Reset,       // the script reset the connection
  Stopped,     // the server is shutting down
};

class Stats {
 public:
  explicit Stats(std::size_t history_limit = 100) : history_limit_(history_limit) {}

  // Counts one request and its body bytes, remembers it as the last and in the history.
  void recordRequest(const ReceivedRequest& request, std::uint64_t seq, std::string_view wire);
  void recordStatus(const std::string& path, int status);
  void recordStreamStart(const std::string& path);
  void recordEvent(const std::string& path);
  void recordStall(const std::string& path);
  // The client closed the connection while delay_ms was being waited out (before any byte).
  void recordDelayAbandoned(const std::string& path);
  void recordStreamEnd(const std::string& path, StreamEnd end);

  // {"paths":{path:{requests,bytes_received,streams_started,streams_completed,streams_aborted,
  //   streams_reset,streams_stalled,events_sent,delays_abandoned,statuses:{"200":n}}},"totals":{… without statuses}}
  nlohmann::ordered_json statsJson() const;
  // The last provider request (toJson(ReceivedRequest) plus "seq" and "wire"), or nullopt.
  std::optional<nlohmann::ordered_json> lastJson() const;
  // The last `history_limit` requests, oldest first.
  nlohmann::ordered_json historyJson() const;
  void reset();

 private:
  struct Counters {
    std::uint64_t requests = 0;
    std::uint64_t bytes_received = 0;
    std::uint64_t streams_started = 0;
    std::uint64_t streams_completed = 0;
    std::uint64_t streams_aborted = 0;
    std::uint64_t streams_reset = 0;
    std::uint64_t streams_stalled = 0;
    std::uint64_t events_sent = 0;
    std::uint64_t delays_abandoned = 0;
    std::map<int, std::uint64_t> statuses;
  };
  static nlohmann::ordered_json countersJson(const Counters& counters, bool with_statuses);

  const std::size_t history_limit_;
  mutable std::mutex mutex_;
  std::map<std::string, Counters> paths_;
  std::deque<nlohmann::ordered_json> history_;
};

}  // namespace sluice::mock
