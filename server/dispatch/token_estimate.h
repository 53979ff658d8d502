#pragma once
// A quick, deterministic estimate of a request's input tokens, used before any upstream call
// (context-window checks, count_tokens for providers that have no counting endpoint). Pure.
//
// It counts the text of the system prompt, messages, tool results and tool definitions at about
// four bytes per token. Images and tool-call inputs are not counted, so it errs low: it never
// makes a request that fits look too big.

#include <cstdint>

#include "server/wire/ir.h"

namespace sluice::dispatch {

int64_t estimateInputTokens(const wire::Request& request);

}  // namespace sluice::dispatch
