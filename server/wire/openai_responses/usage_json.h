#pragma once
// The Responses `usage` object <-> neutral Usage. Responses already counts the neutral way:
// input_tokens includes input_tokens_details.cached_tokens, output_tokens includes
// output_tokens_details.reasoning_tokens; cache writes appear as
// input_tokens_details.cache_write_tokens when the provider reports them.

#include "server/wire/ir.h"

namespace sluice::wire::openai_responses {

// Reads `usage` into `out`; false (and `out` untouched) when it is not an object.
bool readUsage(const Json& usage, Usage& out);

// {input_tokens, input_tokens_details{cached_tokens[, cache_write_tokens when > 0]},
//  output_tokens, output_tokens_details{reasoning_tokens}, total_tokens}.
Json usageJson(const Usage& usage);

}  // namespace sluice::wire::openai_responses
