#pragma once
// Token usage in the gateway's neutral counting: input_tokens is every prompt token, cached ones
// included (OpenAI and Gemini count this way; Anthropic's input_tokens excludes cache reads and
// writes, so its codec adds them back); output_tokens includes reasoning tokens.

#include <cstdint>

namespace sluice::wire {

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;

  // Prompt tokens neither read from nor written to a cache.
  int64_t uncachedInputTokens() const {
    const int64_t rest = input_tokens - cache_read_tokens - cache_write_tokens;
    return rest > 0 ? rest : 0;
  }
};

}  // namespace sluice::wire
