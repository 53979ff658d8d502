#include "server/wire/openai_responses/usage_json.h"

#include "server/wire/json_access.h"

namespace sluice::wire::openai_responses {

bool readUsage(const Json& usage, Usage& out) {
  if (!usage.is_object()) return false;
  Usage read;
  read.input_tokens = intMember(usage, "input_tokens").value_or(0);
  read.output_tokens = intMember(usage, "output_tokens").value_or(0);
  if (const Json* details = member(usage, "input_tokens_details")) {
    read.cache_read_tokens = intMember(*details, "cached_tokens").value_or(0);
    read.cache_write_tokens = intMember(*details, "cache_write_tokens").value_or(0);
  }
  if (const Json* details = member(usage, "output_tokens_details")) {
    read.reasoning_tokens = intMember(*details, "reasoning_tokens").value_or(0);
  }
  out = read;
  return true;
}

Json usageJson(const Usage& usage) {
  Json input_details = {{"cached_tokens", usage.cache_read_tokens}};
  if (usage.cache_write_tokens > 0) input_details["cache_write_tokens"] = usage.cache_write_tokens;
  return {{"input_tokens", usage.input_tokens},
          {"input_tokens_details", std::move(input_details)},
          {"output_tokens", usage.output_tokens},
          {"output_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}},
          {"total_tokens", usage.input_tokens + usage.output_tokens}};
}

}  // namespace sluice::wire::openai_responses
