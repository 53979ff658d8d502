#pragma once
// Carries a reasoning signature minted by ANOTHER provider wire through an Anthropic client and
// back. A thinking block shown to an Anthropic client must hold its signature in the block's
// `signature` (or redacted `data`) string, and the client sends it back verbatim on the next
// turn; without a mark the gateway would then take it for an Anthropic signature and drop it
// before a Gemini or Responses upstream that needs it (Gemini 3 refuses function-calling history
// without its thoughtSignature).
//
//   sluice:<wire>:<reasoning_id>:<payload>      e.g. "sluice:gemini::Et0B..."
//
// <wire> is catalog::toString(wire); <reasoning_id> may be empty. Anthropic's own signatures are
// never wrapped. ':' appears in neither base64 payloads, reasoning ids nor wire names.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::wire::anthropic {

struct UnwrappedSignature {
  std::optional<catalog::Wire> wire;  // Anthropic for a plain (unwrapped) signature
  std::string reasoning_id;
  std::string payload;
};

// The string to show an Anthropic client for a signature minted by `wire` (unchanged when the
// wire is Anthropic or unknown).
std::string wrapSignature(std::optional<catalog::Wire> wire, std::string_view reasoning_id, std::string_view payload);

// The inverse of wrapSignature. A string that is not a well-formed envelope is an Anthropic
// signature, returned as it is.
UnwrappedSignature unwrapSignature(std::string_view text);

}  // namespace sluice::wire::anthropic
