#include "tools/mock-provider/gemini_render.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/thought_signatures.h"
#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

std::string finishReason(AnswerFinish finish) {
  switch (finish) {
    case AnswerFinish::Stop:
    case AnswerFinish::ToolUse: return "STOP";
    case AnswerFinish::Length: return "MAX_TOKENS";
    case AnswerFinish::ContentFilter: return "SAFETY";
  }
  return "STOP";
}

Json usageMetadata(const Usage& usage, std::int64_t candidates, std::int64_t thoughts) {
  const std::int64_t prompt = usage.promptTotal();
  Json meta{{"promptTokenCount", prompt},
            {"candidatesTokenCount", candidates},
            {"totalTokenCount", prompt + candidates + thoughts},
            {"promptTokensDetails", Json::array({Json{{"modality", "TEXT"}, {"tokenCount", prompt}}})}};
  if (thoughts > 0) meta["thoughtsTokenCount"] = thoughts;
  if (usage.cache_read > 0) meta["cachedContentTokenCount"] = usage.cache_read;
  return meta;
}

// Signed whether or not thoughts were asked for, as Gemini 3 signs the first call of each step.
Json functionCallPart(const Answer& answer) {
  Json args = Json::parse(answer.tool_call->arguments, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) args = Json::object();
  Json part{{"functionCall", Json{{"name", answer.tool_call->name}, {"args", args}}}};
  part["thoughtSignature"] = mintCallSignature(answer.model, answer.seq, 0, answer.tool_call->name);
  return part;
}

Json response(const Answer& answer, Json parts, const Json& usage, const std::string* finish) {
  Json candidate{{"content", Json{{"parts", parts}, {"role", "model"}}}};
  if (finish) candidate["finishReason"] = *finish;
  candidate["index"] = 0;
  return Json{{"candidates", Json::array({candidate})},
              {"usageMetadata", usage},
              {"modelVersion", answer.model},
              {"responseId", "mock-" + std::to_string(answer.seq)}};
}

bool hasText(const Answer& answer) { return !answer.text.empty() || !answer.tool_call; }

}  // namespace

std::string renderGenerateContent(const Answer& answer) {
  Json parts = Json::array();
  if (answer.thinking) parts.push_back(Json{{"text", *answer.thinking}, {"thought", true}});
  if (hasText(answer)) {
    Json part{{"text", answer.text}};
    if (answer.thinking && !answer.tool_call) part["thoughtSignature"] = answer.signature;
    parts.push_back(part);
  }
  if (answer.tool_call) parts.push_back(functionCallPart(answer));
  const std::string finish = finishReason(answer.finish);
  return response(answer, parts, usageMetadata(answer.usage, answer.usage.visibleOutput(), answer.usage.reasoning),
                   &finish)
      .dump();
}

std::vector<SseEvent> renderGeminiStream(const Answer& answer) {
  const Usage& usage = answer.usage;
  const std::string finish = finishReason(answer.finish);
  const Json final_usage = usageMetadata(usage, usage.visibleOutput(), usage.reasoning);

  struct Chunk {
    Json parts;
    std::int64_t candidates;
    std::int64_t thoughts;
  };
  std::vector<Chunk> chunks;
  std::string thought_so_far;
  if (answer.thinking)
    for (const auto& piece : splitWords(*answer.thinking)) {
      thought_so_far += piece;
      chunks.push_back({Json::array({Json{{"text", piece}, {"thought", true}}}), 0,
                        std::min(usage.reasoning, countTokens(thought_so_far))});
    }
  const std::int64_t thoughts = answer.thinking ? usage.reasoning : 0;
  std::string text_so_far;
  if (hasText(answer)) {
    auto pieces = textPieces(answer);
    if (pieces.empty()) pieces.emplace_back();
    for (const auto& piece : pieces) {
      text_so_far += piece;
      chunks.push_back({Json::array({Json{{"text", piece}}}), std::min(usage.visibleOutput(), countTokens(text_so_far)),
                        thoughts});
    }
  }
  if (answer.tool_call) {
    chunks.push_back({Json::array({functionCallPart(answer)}), usage.visibleOutput(), thoughts});
  } else if (answer.thinking) {
    chunks.push_back({Json::array({Json{{"text", ""}, {"thoughtSignature", answer.signature}}}), usage.visibleOutput(),
                      thoughts});
  }

  std::vector<SseEvent> events;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const bool last = i + 1 == chunks.size();
    const Json meta = last ? final_usage : usageMetadata(usage, chunks[i].candidates, chunks[i].thoughts);
    events.push_back({"", response(answer, chunks[i].parts, meta, last ? &finish : nullptr).dump()});
  }
  return events;
}

std::vector<SseEvent> renderGeminiStreamError(const ErrorSpec& error) {
  Json data{{"error", Json{{"code", error.status}, {"message", error.message}, {"status", error.type}}}};
  return {{"", data.dump()}};
}

std::string renderGeminiCountTokens(std::int64_t total_tokens) {
  return Json{{"totalTokens", total_tokens},
              {"promptTokensDetails", Json::array({Json{{"modality", "TEXT"}, {"tokenCount", total_tokens}}})}}
      .dump();
}

}  // namespace sluice::mock
