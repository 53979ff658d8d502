#pragma once
// Tool-call ids for Gemini function calls. The Gemini API usually sends a functionCall without an
// id, yet every client wire needs one to pair a call with its result across turns. The codec
// mints one that depends only on where the call sits in the answer, so decoding the same answer
// twice (streamed or not) gives the same id. Pure.

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::wire::gemini {

// "call_" + 24 lowercase hex digits: a 96-bit FNV-1a digest of (response_id, candidate_index,
// call_ordinal, name). call_ordinal counts the function calls of the candidate from 0.
std::string mintToolCallId(std::string_view response_id, int64_t candidate_index, int64_t call_ordinal,
                           std::string_view name);

// True when `id` has the exact shape mintToolCallId() produces.
bool isMintedToolCallId(std::string_view id);

// Whether an IR tool-call id goes back upstream as functionCall.id / functionResponse.id: only
// ids Gemini itself sent. Ids this codec minted never reached Gemini, and ids with another wire's
// prefix ("toolu_", "srvtoolu_", "call_", "fc_") were minted by another provider.
bool sendsToolCallId(std::string_view id);

}  // namespace sluice::wire::gemini
