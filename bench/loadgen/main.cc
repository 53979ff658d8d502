// sluice-loadgen: an HTTP/1.1 keep-alive load generator for the benchmark (scripts/bench.sh).
// Closed loop (--connections back-to-back) or open loop (--rate, latency from the scheduled
// time), optional streaming measurement (time to first token event, gaps between token events,
// late and dropped frames). Prints one JSON object on stdout.

#include <barrier>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "bench/loadgen/load_thread.h"

namespace {

using sluice::bench::Histogram;
using sluice::bench::LoadThread;
using sluice::bench::Options;
using sluice::bench::Stats;

constexpr const char* kUsage = R"(usage: sluice-loadgen --url http://HOST:PORT/PATH [options]
  -H, --header 'Name: value'   request header (repeatable)
  --body TEXT | --body-file F  POST this body (GET without one)
  -c, --connections N          keep-alive connections (default 1)
  -t, --threads N              load threads (default 1)
  --rate R                     open loop at R requests/s in total (default: closed loop)
  -d, --duration S             recorded seconds (default 5)
  --warmup S                   unrecorded seconds first (default 1)
  --ramp-up S                  closed loop: start the connections evenly over S seconds
  --timeout-ms N               per request (default 10000)
  --stream-marker TEXT         count each occurrence in the body as one token event
  --pace-ms N --late-ms N      a token gap over pace+late is late (defaults 0, 50)
  --expect-tokens N            a stream with fewer token events is dropped
  --label TEXT                 copied into the output
)";

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "sluice-loadgen: " << problem << "\n" << kUsage;
  std::exit(2);
}

bool parseUrl(const std::string& url, Options& options) {
  const std::string scheme = "http://";
  if (!url.starts_with(scheme)) return false;
  const std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  options.path = slash == std::string::npos ? "/" : rest.substr(slash);
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return false;
  options.host = authority.substr(0, colon);
  options.port = std::stoi(authority.substr(colon + 1));
  return options.port > 0;
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", ch);
      out += escaped;
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

std::string percentiles(const Histogram& histogram) {
  auto us = [](int64_t nanos) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(nanos) / 1000.0);
    return std::string(text);
  };
  std::ostringstream out;
  out << "{\"count\":" << histogram.count() << ",\"min\":" << us(histogram.min())
      << ",\"mean\":" << us(static_cast<int64_t>(histogram.mean())) << ",\"p50\":" << us(histogram.percentile(50))
      << ",\"p90\":" << us(histogram.percentile(90)) << ",\"p99\":" << us(histogram.percentile(99))
      << ",\"p999\":" << us(histogram.percentile(99.9)) << ",\"max\":" << us(histogram.max()) << "}";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  bool have_url = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) usage(flag + " needs a value");
      return args[++i];
    };
    try {
      if (flag == "--url") {
        if (!parseUrl(value(), options)) usage("--url must be http://HOST:PORT/PATH");
        have_url = true;
      } else if (flag == "-H" || flag == "--header") {
        options.headers.push_back(value());
      } else if (flag == "--body") {
        options.body = value();
      } else if (flag == "--body-file") {
        std::ifstream in(value());
        if (!in) usage("cannot read " + args[i]);
        std::stringstream text;
        text << in.rdbuf();
        options.body = text.str();
      } else if (flag == "-c" || flag == "--connections") {
        options.connections = std::stoi(value());
      } else if (flag == "-t" || flag == "--threads") {
        options.threads = std::stoi(value());
      } else if (flag == "--rate") {
        options.rate = std::stod(value());
      } else if (flag == "-d" || flag == "--duration") {
        options.duration_s = std::stod(value());
      } else if (flag == "--warmup") {
        options.warmup_s = std::stod(value());
      } else if (flag == "--ramp-up") {
        options.ramp_up_s = std::stod(value());
      } else if (flag == "--timeout-ms") {
        options.timeout_ms = std::stoi(value());
      } else if (flag == "--stream-marker") {
        options.stream_marker = value();
      } else if (flag == "--pace-ms") {
        options.pace_ms = std::stoi(value());
      } else if (flag == "--late-ms") {
        options.late_ms = std::stoi(value());
      } else if (flag == "--expect-tokens") {
        options.expect_tokens = std::stoi(value());
      } else if (flag == "--label") {
        options.label = value();
      } else if (flag == "-h" || flag == "--help") {
        std::cout << kUsage;
        return 0;
      } else {
        usage("unknown flag " + flag);
      }
    } catch (const std::exception&) {
      usage("bad value for " + flag);
    }
  }
  if (!have_url) usage("--url is required");
  if (options.connections < 1 || options.threads < 1) usage("--connections and --threads must be at least 1");
  options.threads = std::min(options.threads, options.connections);

  // Thousands of connections need more descriptors than the usual soft limit.
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }

  std::barrier<> start_line(options.threads);
  std::vector<Stats> results(static_cast<size_t>(options.threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t) {
    threads.emplace_back([&, t] { results[static_cast<size_t>(t)] = LoadThread(options, t, start_line).run(); });
  }
  for (auto& thread : threads) thread.join();
  Stats total;
  for (const auto& stats : results) total.merge(stats);

  std::ostringstream out;
  out << "{\"label\":" << jsonString(options.label) << ",\"mode\":\"" << (options.rate > 0 ? "open" : "closed")
      << "\",\"connections\":" << options.connections << ",\"threads\":" << options.threads
      << ",\"rate_target\":" << options.rate << ",\"duration_s\":" << options.duration_s
      << ",\"requests\":" << total.completed << ",\"requests_all\":" << total.completed_all << ",\"ok\":" << total.ok
      << ",\"rps\":" << static_cast<double>(total.completed) / options.duration_s
      << ",\"failures\":" << total.failures() << ",\"errors\":{\"non_2xx\":" << (total.completed - total.ok)
      << ",\"connect\":" << total.connect_errors << ",\"read\":" << total.read_errors
      << ",\"timeout\":" << total.timeouts << ",\"unsent\":" << total.unsent << "},\"statuses\":{";
  bool first = true;
  for (const auto& [status, count] : total.statuses) {
    out << (first ? "" : ",") << "\"" << status << "\":" << count;
    first = false;
  }
  out << "},\"reconnects\":" << total.reconnects << ",\"backlog_max\":" << total.backlog_max
      << ",\"body_bytes\":" << total.body_bytes << ",\"latency_us\":" << percentiles(total.latency);
  if (!options.stream_marker.empty()) {
    out << ",\"ttft_us\":" << percentiles(total.ttft) << ",\"gap_us\":" << percentiles(total.token_gap)
        << ",\"streams\":{\"completed\":" << total.streams << ",\"dropped\":" << total.dropped_streams
        << ",\"frames\":" << total.frames << ",\"late_frames\":" << total.late_frames << "}";
  }
  out << "}\n";
  std::cout << out.str();
  return 0;
}
