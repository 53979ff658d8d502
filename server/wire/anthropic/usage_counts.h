#pragma once
// Anthropic usage objects <-> the neutral Usage of server/wire/usage.h.
//
// Anthropic counts input_tokens WITHOUT the tokens read from or written to the prompt cache;
// the neutral input is input_tokens + cache_read_input_tokens + cache_creation_input_tokens.
// output_tokens already includes thinking; output_tokens_details.thinking_tokens, when present,
// is the reasoning share.

#include <cstdint>
#include <optional>

#include "server/wire/ir.h"
#include "server/wire/usage.h"

namespace sluice::wire::anthropic {

// The counters as the wire reports them. A stream folds message_start's usage and then each
// message_delta's (cumulative, authoritative) into one value: a field a later object omits
// keeps its earlier value.
struct UsageCounts {
  std::optional<int64_t> input_tokens;
  std::optional<int64_t> cache_read_input_tokens;
  std::optional<int64_t> cache_creation_input_tokens;
  std::optional<int64_t> output_tokens;
  std::optional<int64_t> thinking_tokens;

  // Overwrites every counter present (as a whole number) in `usage`. False when `usage` is not
  // an object.
  bool merge(const Json& usage);
  Usage toNeutral() const;
};

// {"input_tokens","cache_creation_input_tokens","cache_read_input_tokens","output_tokens"} in
// Anthropic counting (input excludes the cached share), plus output_tokens_details.thinking_tokens
// when there were reasoning tokens.
Json usageToWire(const Usage& usage);

}  // namespace sluice::wire::anthropic
