#pragma once
// What one load-generator run does. Filled from the command line by main.cc.

#include <string>
#include <vector>

namespace sluice::bench {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string path = "/";
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // POST when non-empty, else GET
  int connections = 1;
  int threads = 1;
  double rate = 0;           // requests/s in total; 0 = closed loop (each connection back to back)
  double duration_s = 5;
  double warmup_s = 1;       // run but not recorded
  double ramp_up_s = 0;      // closed loop: spread the connections' first requests over this long
  int timeout_ms = 10000;    // a request without its full answer by then counts as a timeout
  // Streaming: a decoded body byte sequence that marks one token event ("text_delta" …).
  std::string stream_marker;
  int pace_ms = 0;           // the mock's chunk_delay_ms; a token gap over pace + late_ms is late
  int late_ms = 50;
  int expect_tokens = 0;     // a stream with fewer token events than this counts as dropped
  std::string label;
};

}  // namespace sluice::bench
