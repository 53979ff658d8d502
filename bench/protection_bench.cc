// Micro-benchmark of data protection on a coding agent's prompt: source code, build and server
// logs, a stack trace and an .env file with a few secrets and personal data among them.
//
//   build/bin/protection_bench [iterations]
//
// Reports, as the median and p90 of many runs (these machines are shared and noisy):
//   find   KB    Detector::find over the prompt text, microseconds per KB
//   mask   KB    maskRequest of a request holding the prompt (system + messages + a tool result),
//                microseconds per KB of text
//   restore      StreamRestorer::feed per streamed event (text deltas of ~24 bytes, one in eight
//                with a placeholder, some split across two events; and tool-input JSON deltas),
//                nanoseconds per event

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/protection/masker.h"
#include "server/protection/placeholder.h"
#include "server/protection/restorer.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace sluice::protection;

// About 2 KB of what an agent sends; `n` varies the values so a long prompt is not one value
// repeated.
std::string chunk(int n) {
  const std::string k = std::to_string(n);
  return "// src/server/session.cc\n"
         "#include \"server/session.h\"\n\n"
         "Status Session::open(const Config& config) {\n"
         "  auto conn = pool_.acquire(config.host, config.port, std::chrono::seconds(5));\n"
         "  if (!conn) return Status::unavailable(\"pool exhausted after \" + std::to_string(retries_) + \" tries\");\n"
         "  for (size_t i = 0; i < config.shards.size(); ++i) conn->bind(i, config.shards[i]);\n"
         "  return Status::ok();\n"
         "}\n\n"
         "2024-03-21T08:09:" + std::to_string(10 + n % 50) + ".512Z level=info msg=\"request done\" request_id=550e8400-e29b-41d4-a716-44665544" + std::to_string(1000 + n % 9000) + " status=200 duration_ms=12\n"
         "2024-03-21T08:09:11.003Z level=warn msg=\"slow query\" peer=10.20." + std::to_string(n % 250) + ".7:5432 rows=1204 took=1.204s\n"
         "Traceback (most recent call last):\n"
         "  File \"/app/worker.py\", line 142, in handle\n"
         "    result = await self.dispatch(request)\n"
         "TimeoutError: timed out after 30.0s\n"
         "$ git log --oneline -3\n"
         "a1b2c3d Bump lodash from 4.17.20 to 4.17.21\n"
         "0c9d8e7 Add exponential backoff (max 32s)\n"
         "# .env\n"
         "DB_HOST=db-primary\n"
         "DB_PASSWORD=Qx7pLm2z" + k + "\n"
         "OPENAI_API_KEY=sk-proj-AbCdEf0123456789GhIjKlMnOp" + k + "\n"
         "ADMIN_EMAIL=ops" + k + "@acme-corp.com\n"
         "PORT=8080\n"
         "def parse_version(text: str) -> tuple[int, int, int]:\n"
         "    major, minor, patch = (int(part) for part in text.split(\".\"))\n"
         "    return major, minor, patch\n\n"
         "SELECT u.id, COUNT(o.id) FROM users u JOIN orders o ON o.user_id = u.id WHERE u.created_at >= '2024-01-01'\n"
         "  GROUP BY u.id HAVING COUNT(o.id) > 5 ORDER BY 2 DESC LIMIT 50;\n"
         ".btn-primary { color: #fff; background-color: #0d6efd; border: 1px solid #0a58ca; }\n"
         "Please ask the customer to call back on +44 20 7946 0" + std::to_string(100 + n % 900) + " about the refund.\n\n";
}

std::string prompt(size_t bytes) {
  std::string out;
  for (int n = 0; out.size() < bytes; ++n) out += chunk(n);
  out.resize(bytes);
  // Cut at a line end, so no value is cut in two.
  out.resize(out.rfind('\n') + 1);
  return out;
}

struct Stats {
  double median;
  double p90;
};

template <typename F>
Stats measure(int iterations, F&& operation) {
  std::vector<double> samples;
  samples.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    const auto start = Clock::now();
    operation(i);
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 9 / 10]};
}

sluice::wire::Request requestOf(const std::string& text) {
  // The prompt split as an agent sends it: a quarter system, half user text, a quarter tool result.
  sluice::wire::Request request;
  const size_t quarter = text.rfind('\n', text.size() / 4) + 1;
  const size_t three = text.rfind('\n', text.size() * 3 / 4) + 1;
  request.system.push_back(sluice::wire::ContentBlock::ofText(text.substr(0, quarter)));
  sluice::wire::Message user;
  user.content.push_back(sluice::wire::ContentBlock::ofText(text.substr(quarter, three - quarter)));
  sluice::wire::ContentBlock result;
  result.type = sluice::wire::ContentBlock::Type::ToolResult;
  result.tool_use_id = "toolu_1";
  result.result.push_back(sluice::wire::ContentBlock::ofText(text.substr(three)));
  user.content.push_back(std::move(result));
  request.messages.push_back(std::move(user));
  return request;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  const Detector detector =
      *Detector::create({Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey, Kind::Jwt,
                         Kind::PrivateKey, Kind::Password, Kind::UrlCredentials, Kind::IpAddress},
                        {"Acme Corp", "db-primary", "Globex Industries"});
  size_t sink = 0;
  std::printf("%d iterations; medians and p90s\n", iterations);

  for (const size_t kb : {1, 16, 256}) {
    const std::string text = prompt(kb * 1024);
    const double kbs = static_cast<double>(text.size()) / 1024.0;
    const int runs = kb >= 256 ? std::max(iterations / 10, 10) : iterations;
    const Stats find = measure(runs, [&](int) { sink += detector.find(text).size(); });
    std::vector<sluice::wire::Request> copies(runs, requestOf(text));
    size_t values = 0;
    const Stats mask = measure(runs, [&](int i) {
      auto result = maskRequest(copies[i], detector);
      values = result->mapping.size();
      sink += values;
    });
    std::printf("prompt %4zu KB (%zu values)  find %6.2f us/KB (p90 %6.2f)   mask %6.2f us/KB (p90 %6.2f)\n", kb,
                values, find.median / kbs, find.p90 / kbs, mask.median / kbs, mask.p90 / kbs);
  }

  // A streamed answer echoing placeholders: ~24-byte text deltas, every eighth with a placeholder,
  // every sixteenth cutting one in two; then tool-input JSON deltas the same way.
  Mapping mapping;
  for (int n = 1; n <= 50; ++n) mapping.assign(Kind::Email, n, "person" + std::to_string(n) + "@example.com");
  for (const auto kind : {sluice::wire::StreamEvent::DeltaKind::Text, sluice::wire::StreamEvent::DeltaKind::ToolInputJson}) {
    std::vector<sluice::wire::StreamEvent> events;
    for (int i = 0; i < 4000; ++i) {
      sluice::wire::StreamEvent event;
      event.type = sluice::wire::StreamEvent::Type::BlockDelta;
      event.delta_kind = kind;
      const std::string placeholder = makePlaceholder(Kind::Email, 1 + i % 50);
      if (i % 16 == 0) {
        event.delta = "and then write to " + placeholder.substr(0, 7);
      } else if (i % 16 == 1) {
        event.delta = placeholder.substr(7) + " for the rest";
      } else if (i % 8 == 0) {
        event.delta = "cc " + placeholder + " too, ok";
      } else {
        event.delta = "the model keeps talking ";
      }
      events.push_back(std::move(event));
    }
    // Events are moved in, as the relay does; copying them is left out of the time.
    std::vector<double> samples;
    for (int run = 0; run < std::max(iterations / 10, 10); ++run) {
      std::vector<sluice::wire::StreamEvent> input = events;
      StreamRestorer restorer(mapping);
      std::vector<sluice::wire::StreamEvent> out;
      const auto start = Clock::now();
      for (auto& event : input) {
        out.clear();
        restorer.feed(std::move(event), out);
        sink += out.size();
      }
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    std::sort(samples.begin(), samples.end());
    const Stats restore{samples[samples.size() / 2], samples[samples.size() * 9 / 10]};
    std::printf("restore %-10s %6.0f ns/event (p90 %6.0f)\n",
                kind == sluice::wire::StreamEvent::DeltaKind::Text ? "text" : "tool-json",
                restore.median * 1000.0 / events.size(), restore.p90 * 1000.0 / events.size());
  }
  return sink == 0 ? 1 : 0;
}
