#pragma once
// Gemini usageMetadata -> neutral Usage (server/wire/usage.h). Streams repeat usageMetadata on
// every chunk as running totals and early chunks may lack fields, so each count keeps the last
// value seen. Pure.

#include <cstdint>
#include <optional>

#include "server/wire/ir.h"

namespace sluice::wire::gemini {

class UsageTotals {
 public:
  // Takes the counts present in one usageMetadata object; other members and types are ignored.
  void merge(const Json& usage_metadata);
  // True once any token count arrived.
  bool reported() const;
  // True once promptTokenCount arrived.
  bool hasInput() const { return prompt_.has_value(); }
  // input = promptTokenCount (cached included) + toolUsePromptTokenCount;
  // cache_read = cachedContentTokenCount; output = candidatesTokenCount + thoughtsTokenCount;
  // reasoning = thoughtsTokenCount; cache_write = 0 (Gemini reports none).
  Usage usage() const;
  // The same with only the prompt side filled (for MessageStart).
  Usage inputUsage() const;

 private:
  std::optional<int64_t> prompt_;
  std::optional<int64_t> candidates_;
  std::optional<int64_t> thoughts_;
  std::optional<int64_t> cached_;
  std::optional<int64_t> tool_use_prompt_;
};

}  // namespace sluice::wire::gemini
