#include "server/wire/gemini/usage_totals.h"

#include "server/wire/json_access.h"

namespace sluice::wire::gemini {
namespace {

void takeCount(const Json& usage_metadata, const char* key, std::optional<int64_t>& slot) {
  if (const auto count = int64Member(usage_metadata, key); count && *count >= 0) slot = count;
}

}  // namespace

void UsageTotals::merge(const Json& usage_metadata) {
  takeCount(usage_metadata, "promptTokenCount", prompt_);
  takeCount(usage_metadata, "candidatesTokenCount", candidates_);
  takeCount(usage_metadata, "thoughtsTokenCount", thoughts_);
  takeCount(usage_metadata, "cachedContentTokenCount", cached_);
  takeCount(usage_metadata, "toolUsePromptTokenCount", tool_use_prompt_);
}

bool UsageTotals::reported() const {
  return prompt_ || candidates_ || thoughts_ || cached_ || tool_use_prompt_;
}

Usage UsageTotals::usage() const {
  Usage usage = inputUsage();
  usage.output_tokens = candidates_.value_or(0) + thoughts_.value_or(0);
  usage.reasoning_tokens = thoughts_.value_or(0);
  return usage;
}

Usage UsageTotals::inputUsage() const {
  Usage usage;
  // NOTE: toolUsePromptTokenCount (results of Gemini-run tools fed back to the model) is billed as
  // prompt input; totalTokenCount counts it beside promptTokenCount, so it is added here.
  usage.input_tokens = prompt_.value_or(0) + tool_use_prompt_.value_or(0);
  usage.cache_read_tokens = cached_.value_or(0);
  return usage;
}

}  // namespace sluice::wire::gemini
