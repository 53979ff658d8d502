// Micro-benchmark of the wire layer on a Claude Code-sized request (~200 KB: a long system prompt,
// tool definitions and a multi-turn history with tool calls and results).
//
//   build/bin/wire_bench [iterations]
//
// Reports the median and p90 per operation, in microseconds:
//   passthrough  the same-wire lane as it runs: walk the body for the members it reads, rewrite
//                `model` in place (json_scan.h)
//   parse+dump   what the lane did before: parse the body, set `model`, serialise
//   decode       Anthropic Messages body -> IR
//   encode:X     IR -> provider wire X
// Median of many runs: these machines are shared and noisy.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/wire/codec.h"
#include "server/wire/json_scan.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::ordered_json;

std::string claudeCodeRequest() {
  ordered_json body;
  body["model"] = "claude-sonnet-5-5";
  body["max_tokens"] = 32000;
  body["stream"] = true;
  std::string system(24000, ' ');
  for (size_t i = 0; i < system.size(); i += 7) system[i] = 'a' + static_cast<char>(i % 26);
  body["system"] = ordered_json::array({{{"type", "text"}, {"text", system}, {"cache_control", {{"type", "ephemeral"}}}}});
  ordered_json tools = ordered_json::array();
  for (int t = 0; t < 20; ++t) {
    tools.push_back({{"name", "tool_" + std::to_string(t)},
                     {"description", std::string(600, 'd')},
                     {"input_schema",
                      {{"type", "object"},
                       {"properties", {{"path", {{"type", "string"}, {"description", std::string(120, 'p')}}},
                                       {"limit", {{"type", "integer"}}}}},
                       {"required", {"path"}}}}});
  }
  body["tools"] = tools;
  ordered_json messages = ordered_json::array();
  for (int turn = 0; turn < 40; ++turn) {
    const std::string id = "toolu_" + std::to_string(1000 + turn);
    messages.push_back({{"role", "user"},
                        {"content", turn == 0 ? ordered_json(std::string(2000, 'q'))
                                              : ordered_json::array({{{"type", "tool_result"},
                                                                      {"tool_use_id", "toolu_" + std::to_string(999 + turn)},
                                                                      {"content", std::string(3500, 'r')}}})}});
    messages.push_back({{"role", "assistant"},
                        {"content", ordered_json::array({{{"type", "text"}, {"text", std::string(300, 't')}},
                                                         {{"type", "tool_use"},
                                                          {"id", id},
                                                          {"name", "tool_3"},
                                                          {"input", {{"path", "/src/file.cc"}, {"limit", 200}}}}})}});
  }
  messages.push_back({{"role", "user"}, {"content", "Continue."}});
  body["messages"] = messages;
  return body.dump();
}

struct Stats {
  double median_us;
  double p90_us;
};

template <typename F>
Stats measure(int iterations, F&& operation) {
  std::vector<double> samples;
  samples.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    const auto start = Clock::now();
    operation();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 9 / 10]};
}

}  // namespace

int main(int argc, char** argv) {
  using sluice::catalog::Wire;
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string body = claudeCodeRequest();
  std::printf("request: %zu bytes, %d iterations\n", body.size(), iterations);

  size_t sink = 0;
  auto report = [](const char* name, Stats stats) {
    std::printf("%-26s median %9.1f us   p90 %9.1f us\n", name, stats.median_us, stats.p90_us);
  };
  const std::vector<std::string_view> head_keys = {"model", "stream", "stream_options", "max_tokens"};
  const std::vector<sluice::wire::MemberEdit> edits = {{"model", R"("claude-sonnet-5-5-20261001")"}};
  report("passthrough (walk+edit)", measure(iterations, [&] {
           const auto head = sluice::wire::scanTopLevelMembers(body, head_keys);
           sink += head.members;
           sink += sluice::wire::editTopLevelMembers(body, head, head_keys, edits)->size();
         }));
  report("parse+dump (model only)", measure(iterations, [&] {
           auto parsed = ordered_json::parse(body);
           parsed["model"] = "claude-sonnet-5-5-20261001";
           sink += parsed.dump().size();
         }));
  auto decoded = sluice::wire::decodeRequest(Wire::Anthropic, body);
  if (!decoded) {
    std::fprintf(stderr, "decode failed: %s\n", decoded.error().message.c_str());
    return 1;
  }
  report("decode anthropic", measure(iterations, [&] {
           auto again = sluice::wire::decodeRequest(Wire::Anthropic, body);
           sink += again->messages.size();
         }));
  const sluice::wire::EncodeOptions options{"upstream-model", 4096, 128000};
  for (auto [wire, name] : {std::pair{Wire::Anthropic, "encode anthropic"}, std::pair{Wire::OpenAIChat, "encode openai-chat"},
                            std::pair{Wire::OpenAIResponses, "encode openai-responses"},
                            std::pair{Wire::Gemini, "encode gemini"}}) {
    report(name, measure(iterations, [&] { sink += sluice::wire::encodeRequest(wire, *decoded, options)->size(); }));
  }
  report("decode+encode chat", measure(iterations, [&] {
           auto ir = sluice::wire::decodeRequest(Wire::Anthropic, body);
           sink += sluice::wire::encodeRequest(Wire::OpenAIChat, *ir, options)->size();
         }));
  return sink == 0 ? 1 : 0;
}
