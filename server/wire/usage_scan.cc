// scanResponseUsage: the passthrough lane's usage, read from the one member that holds it.

#include <cstdint>
#include <span>

#include "server/wire/anthropic/usage_counts.h"
#include "server/wire/json_parse.h"
#include "server/wire/codec.h"
#include "server/wire/json_scan.h"
#include "server/wire/openai_chat/usage_json.h"
#include "server/wire/openai_responses/usage_json.h"

namespace sluice::wire {

namespace {

// The members each wire's usage reader looks at, and the members it reads inside the nested ones.
struct Nested {
  std::string_view key;
  std::span<const std::string_view> keys;
};
struct UsageShape {
  std::span<const std::string_view> keys;
  std::span<const Nested> nested;
};

constexpr std::string_view kChatKeys[] = {"prompt_tokens", "completion_tokens", "prompt_tokens_details",
                                          "prompt_cache_hit_tokens", "completion_tokens_details"};
constexpr std::string_view kChatPromptDetails[] = {"cached_tokens", "cache_write_tokens"};
constexpr std::string_view kChatCompletionDetails[] = {"reasoning_tokens"};
constexpr Nested kChatNested[] = {{"prompt_tokens_details", kChatPromptDetails},
                                  {"completion_tokens_details", kChatCompletionDetails}};

constexpr std::string_view kAnthropicKeys[] = {"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                                               "output_tokens", "output_tokens_details"};
constexpr std::string_view kAnthropicOutputDetails[] = {"thinking_tokens"};
constexpr Nested kAnthropicNested[] = {{"output_tokens_details", kAnthropicOutputDetails}};

constexpr std::string_view kResponsesKeys[] = {"input_tokens", "output_tokens", "input_tokens_details",
                                               "output_tokens_details"};
constexpr std::string_view kResponsesInputDetails[] = {"cached_tokens", "cache_write_tokens"};
constexpr std::string_view kResponsesOutputDetails[] = {"reasoning_tokens"};
constexpr Nested kResponsesNested[] = {{"input_tokens_details", kResponsesInputDetails},
                                       {"output_tokens_details", kResponsesOutputDetails}};

UsageShape shapeOf(catalog::Wire wire) {
  switch (wire) {
    case catalog::Wire::Anthropic: return {kAnthropicKeys, kAnthropicNested};
    case catalog::Wire::OpenAIChat: return {kChatKeys, kChatNested};
    case catalog::Wire::OpenAIResponses: return {kResponsesKeys, kResponsesNested};
    case catalog::Wire::Gemini:
    case catalog::Wire::Mcp:
    case catalog::Wire::BedrockConverse: break;
  }
  return {};
}

// The object in `text` reduced to the members a reader looks at, each value parsed exactly as a
// parse of the whole text would have parsed it (so the reader's answer is the same), without
// building the members nobody reads. nullopt when the text does not walk: the caller parses it.
std::optional<Json> pick(std::string_view text, std::span<const std::string_view> keys, std::span<const Nested> nested) {
  const MembersScan scan = scanTopLevelMembers(text, keys);
  if (!scan.walked) return std::nullopt;
  Json out = Json::object();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!scan.values[i]) continue;
    const std::string_view value = *scan.values[i];
    const Nested* inner = nullptr;
    for (const Nested& candidate : nested) {
      if (candidate.key == keys[i]) inner = &candidate;
    }
    if (inner && !value.empty() && value.front() == '{') {
      auto picked = pick(value, inner->keys, {});
      if (!picked) return std::nullopt;
      out[std::string(keys[i])] = std::move(*picked);
      continue;
    }
    // Token counts are small non-negative integers: taken as a parse takes them (an unsigned
    // number), without setting up a parser for each.
    if (!value.empty() && value.size() <= 18 && value.find_first_not_of("0123456789") == std::string_view::npos &&
        (value.size() == 1 || value.front() != '0')) {
      uint64_t number = 0;
      for (const char c : value) number = number * 10 + static_cast<uint64_t>(c - '0');
      out[std::string(keys[i])] = number;
      continue;
    }
    Json parsed = parseJsonText(value);
    if (parsed.is_discarded()) return std::nullopt;
    out[std::string(keys[i])] = std::move(parsed);
  }
  return out;
}

}  // namespace

std::optional<UsageReading> scanResponseUsage(catalog::Wire wire, std::string_view body) {
  if (wire == catalog::Wire::Gemini || wire == catalog::Wire::BedrockConverse) return std::nullopt;
  const MemberScan scan = scanTopLevelMember(body, "usage");
  if (!scan.walked) return std::nullopt;
  UsageReading reading;
  if (!scan.value) return reading;
  const UsageShape shape = shapeOf(wire);
  std::optional<Json> picked;
  if (!scan.value->empty() && scan.value->front() == '{') picked = pick(*scan.value, shape.keys, shape.nested);
  const Json usage = picked ? std::move(*picked) : parseBounded(*scan.value);
  if (usage.is_discarded()) return std::nullopt;
  if (!usage.is_object()) return reading;
  switch (wire) {
    case catalog::Wire::Anthropic: {
      anthropic::UsageCounts counts;
      reading.reported = counts.merge(usage);
      reading.usage = counts.toNeutral();
      break;
    }
    case catalog::Wire::OpenAIChat:
      reading.usage = openai_chat::usageFromJson(usage);
      reading.reported = true;
      break;
    case catalog::Wire::OpenAIResponses: reading.reported = openai_responses::readUsage(usage, reading.usage); break;
    case catalog::Wire::Gemini:
    case catalog::Wire::Mcp:
    case catalog::Wire::BedrockConverse: return std::nullopt;
  }
  return reading;
}

}  // namespace sluice::wire
