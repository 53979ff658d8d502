#include "server/wire/openai_chat/usage_json.h"

#include "server/wire/json_access.h"

namespace sluice::wire::openai_chat {

namespace {

int64_t countAt(const Json& object, std::string_view key) {
  const auto value = intMember(object, key);
  return value && *value > 0 ? *value : 0;
}

}  // namespace

Usage usageFromJson(const Json& usage) {
  Usage result;
  result.input_tokens = countAt(usage, "prompt_tokens");
  result.output_tokens = countAt(usage, "completion_tokens");
  if (const Json* details = member(usage, "prompt_tokens_details")) {
    result.cache_read_tokens = countAt(*details, "cached_tokens");
    result.cache_write_tokens = countAt(*details, "cache_write_tokens");
  }
  if (result.cache_read_tokens == 0) result.cache_read_tokens = countAt(usage, "prompt_cache_hit_tokens");
  if (const Json* details = member(usage, "completion_tokens_details")) {
    result.reasoning_tokens = countAt(*details, "reasoning_tokens");
  }
  return result;
}

Json usageToJson(const Usage& usage) {
  Json prompt_details = {{"cached_tokens", usage.cache_read_tokens}};
  if (usage.cache_write_tokens > 0) prompt_details["cache_write_tokens"] = usage.cache_write_tokens;
  return Json{{"prompt_tokens", usage.input_tokens},
              {"completion_tokens", usage.output_tokens},
              {"total_tokens", usage.input_tokens + usage.output_tokens},
              {"prompt_tokens_details", std::move(prompt_details)},
              {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}}};
}

}  // namespace sluice::wire::openai_chat
