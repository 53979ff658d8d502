#pragma once
// Gemini generateContent bodies and stream chunks for an Answer (WIRE_FORMATS.md §4). Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// A GenerateContentResponse with one candidate: parts [thought?, text?, functionCall?]
// (thoughtSignature on the first non-thought part when thinking; a functionCall always carries
// mintCallSignature(model, seq, 0, name)), finishReason, usageMetadata.
std::string renderGenerateContent(const Answer& answer);

// Data-only chunks, each a complete GenerateContentResponse holding only its new parts:
// thought parts word by word, text word by word, the functionCall whole in one chunk (no id),
// usageMetadata as running totals on every chunk, finishReason only on the last chunk (an extra
// {"text":"","thoughtSignature"} chunk ends a thinking text answer).
std::vector<SseEvent> renderGeminiStream(const Answer& answer);

// data: {"error":{code,message,status}}.
std::vector<SseEvent> renderGeminiStreamError(const ErrorSpec& error);

// {"totalTokens": N, "promptTokensDetails":[{"modality":"TEXT","tokenCount":N}]}.
std::string renderGeminiCountTokens(std::int64_t total_tokens);

}  // namespace sluice::mock
