#pragma once
// The token usage of one answer, in neutral terms. Each renderer maps it to its wire:
//   prompt total = input_tokens + cache_read + cache_write
//   Anthropic   input_tokens=input_tokens, cache_read_input_tokens=cache_read,
//               cache_creation_input_tokens=cache_write, output_tokens=output_tokens
//   OpenAI      prompt/input = prompt total, cached_tokens=cache_read,
//               completion/output = output_tokens, reasoning_tokens=reasoning
//   Gemini      promptTokenCount = prompt total, cachedContentTokenCount=cache_read,
//               candidatesTokenCount = output_tokens - reasoning, thoughtsTokenCount=reasoning

#include <cstdint>

namespace sluice::mock {

struct Usage {
  std::int64_t input_tokens = 0;   // prompt tokens neither read from nor written to the cache
  std::int64_t output_tokens = 0;  // includes reasoning
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;
  std::int64_t reasoning = 0;

  std::int64_t promptTotal() const { return input_tokens + cache_read + cache_write; }
  std::int64_t visibleOutput() const { return output_tokens > reasoning ? output_tokens - reasoning : 0; }
};

}  // namespace sluice::mock
