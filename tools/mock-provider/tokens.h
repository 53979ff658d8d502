#pragma once
// Deterministic token arithmetic, so tests can predict every usage number the mock reports.
// Pure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::mock {

// ceil(UTF-8 bytes / 4): "Hello" → 2, "" → 0.
std::int64_t countTokens(std::string_view text);

// Splits text into stream deltas at word starts: "Hello from you" → {"Hello", " from", " you"}.
// Concatenating the result gives the input back. Empty text gives no pieces.
std::vector<std::string> splitWords(std::string_view text);

// Splits text into pieces of at most `max_bytes` bytes (≥ 1), never inside a UTF-8 sequence.
// Concatenating the result gives the input back. Empty text gives no pieces.
std::vector<std::string> splitFragments(std::string_view text, std::size_t max_bytes);

// Standard base64 with padding.
std::string base64Encode(std::string_view bytes);

}  // namespace sluice::mock
