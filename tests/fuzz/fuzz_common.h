#pragma once
// Shared helpers for the fuzz entry points: pick a wire from a byte, a fixed encode context.
#include <cstddef>
#include <cstdint>

#include "catalog/catalog.h"
#include "server/wire/codec.h"

namespace sluice::fuzz {

inline constexpr catalog::Wire kAllWires[] = {catalog::Wire::Anthropic, catalog::Wire::OpenAIChat,
                                              catalog::Wire::OpenAIResponses, catalog::Wire::Gemini,
                                              catalog::Wire::BedrockConverse};
inline constexpr catalog::Wire kClientWires[] = {catalog::Wire::Anthropic, catalog::Wire::OpenAIChat,
                                                 catalog::Wire::OpenAIResponses};

// Bytes from 0xf0 pick bedrock-converse; below, b % 4 picks as it did before that wire existed, so
// the corpora's inputs keep the wire they were found on.
inline catalog::Wire wireFrom(uint8_t b) { return b >= 0xf0 ? catalog::Wire::BedrockConverse : kAllWires[b % 4]; }

inline wire::ResponseContext fuzzContext() {
  return wire::ResponseContext{.model = "fuzz-model", .request_id = "req_fuzz", .created = 1700000000};
}

}  // namespace sluice::fuzz
