#include "server/wire/anthropic/usage_counts.h"

#include "server/wire/json_access.h"

namespace sluice::wire::anthropic {

namespace {

void take(const Json& usage, std::string_view key, std::optional<int64_t>& into) {
  const Json* value = member(usage, key);
  if (value == nullptr) return;
  if (auto number = asInteger(*value)) into = *number;
}

}  // namespace

bool UsageCounts::merge(const Json& usage) {
  if (!usage.is_object()) return false;
  take(usage, "input_tokens", input_tokens);
  take(usage, "cache_read_input_tokens", cache_read_input_tokens);
  take(usage, "cache_creation_input_tokens", cache_creation_input_tokens);
  take(usage, "output_tokens", output_tokens);
  if (const Json* details = member(usage, "output_tokens_details")) take(*details, "thinking_tokens", thinking_tokens);
  return true;
}

Usage UsageCounts::toNeutral() const {
  Usage usage;
  usage.cache_read_tokens = cache_read_input_tokens.value_or(0);
  usage.cache_write_tokens = cache_creation_input_tokens.value_or(0);
  usage.input_tokens = input_tokens.value_or(0) + usage.cache_read_tokens + usage.cache_write_tokens;
  usage.output_tokens = output_tokens.value_or(0);
  usage.reasoning_tokens = thinking_tokens.value_or(0);
  return usage;
}

Json usageToWire(const Usage& usage) {
  Json wire = Json::object();
  wire["input_tokens"] = usage.uncachedInputTokens();
  wire["cache_creation_input_tokens"] = usage.cache_write_tokens;
  wire["cache_read_input_tokens"] = usage.cache_read_tokens;
  wire["output_tokens"] = usage.output_tokens;
  if (usage.reasoning_tokens > 0) wire["output_tokens_details"] = {{"thinking_tokens", usage.reasoning_tokens}};
  return wire;
}

}  // namespace sluice::wire::anthropic
