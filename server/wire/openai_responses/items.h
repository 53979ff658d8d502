#pragma once
// Output items of the Responses wire <-> IR content blocks. Shared by the request codec (an
// assistant turn is replayed as the items the model produced), the response codec and the
// stream encoder, so every path spells an item the same way.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_responses {

// True for content-part types ("input_text", "output_text", "refusal", ...) as opposed to item
// types ("message", "function_call", ...). Opaque blocks hold either; this tells them apart.
bool isContentPartType(std::string_view type);

// A `reasoning` item as a Thinking block: text = the summary texts joined with "\n\n",
// signature = encrypted_content ("" when absent), signature_wire = OpenAIResponses,
// reasoning_id = the item id.
ContentBlock thinkingFromReasoning(const Json& item);

// A function_call's `arguments` string as a JSON object: "" (or absent) -> {}; nullopt when the
// text is not a JSON object.
std::optional<Json> parseArguments(const Json& item);

// A reasoning item {id?, type, summary, encrypted_content?}: one summary_text part holding
// `summary` (none when empty); id and encrypted_content are left out when empty.
Json reasoningItem(std::string_view id, std::string_view summary, std::string_view encrypted_content);

// A ToolUse block as a function_call item. `id` and `status` are left out when empty.
Json functionCallItem(const ContentBlock& block, std::string_view id, std::string_view status,
                      std::string_view arguments);

// An assistant message item holding one output_text part with `text`.
Json outputMessageItem(std::string_view id, std::string_view status, std::string_view text);

// The output_text part the client sees: {"type":"output_text","annotations":[],"logprobs":[],"text":...}.
Json outputTextPart(std::string_view text);

// The tool input as the arguments string; a missing or null input is "{}".
std::string argumentsText(const ContentBlock& block);

}  // namespace sluice::wire::openai_responses
