#pragma once
// Carries a reasoning signature minted by ANOTHER provider wire through a Responses client and
// back. A Responses client keeps a reasoning item's encrypted_content and replays it verbatim on
// the next turn, so a signature from Anthropic (a thinking block) or Gemini (a thoughtSignature)
// shown there as
//
//   sluice:<wire>:<reasoning_id>:<payload>      e.g. "sluice:anthropic::EqQBCkgIARAB..."
//
// comes back to the gateway, which unwraps it and sends it to the provider that minted it
// (Anthropic rejects a tool-use turn whose thinking block is missing; Gemini 3 its thoughtSignature).
// Same envelope as the anthropic codec's. This wire's own encrypted_content is never wrapped;
// ':' appears in neither base64 payloads, reasoning ids nor wire names.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::wire::openai_responses {

// The encrypted_content to show a Responses client for a signature minted by `wire`; the payload
// unchanged when the wire is this one or unknown.
std::string wrapSignature(std::optional<catalog::Wire> wire, std::string_view reasoning_id, std::string_view payload);

struct UnwrappedSignature {
  catalog::Wire wire = catalog::Wire::OpenAIResponses;  // OpenAIResponses for a plain encrypted_content
  std::string reasoning_id;                             // from the envelope; "" when not wrapped
  std::string payload;
  bool wrapped = false;
};

// The inverse of wrapSignature: anything that is not a well-formed envelope is this wire's own.
UnwrappedSignature unwrapSignature(std::string_view text);

}  // namespace sluice::wire::openai_responses
