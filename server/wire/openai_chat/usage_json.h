#pragma once
// Chat's `usage` object <-> the neutral Usage. Chat counts the way usage.h does:
// prompt_tokens includes cached tokens (read and written), completion_tokens includes reasoning.

#include "server/wire/ir.h"
#include "server/wire/usage.h"

namespace sluice::wire::openai_chat {

// Reads prompt_tokens, completion_tokens, prompt_tokens_details.{cached_tokens,cache_write_tokens},
// completion_tokens_details.reasoning_tokens, and DeepSeek's prompt_cache_hit_tokens when there is
// no cached_tokens. Missing or mistyped fields read as 0.
Usage usageFromJson(const Json& usage);

// {"prompt_tokens","completion_tokens","total_tokens","prompt_tokens_details":{"cached_tokens"
// [,"cache_write_tokens" when > 0]},"completion_tokens_details":{"reasoning_tokens"}}.
Json usageToJson(const Usage& usage);

}  // namespace sluice::wire::openai_chat
