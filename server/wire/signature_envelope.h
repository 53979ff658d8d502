#pragma once
// Carries a reasoning signature minted by one provider wire through a client of ANOTHER wire and
// back. A client keeps a thinking block's signature (Anthropic: `signature` or redacted `data`;
// Responses: a reasoning item's encrypted_content) and replays it verbatim on the next turn, so a
// signature another wire minted is shown there as
//
//   sluice:<wire>:<reasoning_id>:<payload>      e.g. "sluice:gemini::Et0B..."
//
// and, when it comes back, unwrapped and sent to the provider that minted it (Anthropic rejects a
// tool-use turn whose thinking block is missing; Gemini 3 function-calling history without its
// thoughtSignature). <wire> is catalog::toString(wire); <reasoning_id> may be empty. The client
// wire's own signatures are never wrapped; ':' appears in neither base64 payloads, reasoning ids
// nor wire names. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::wire {

struct UnwrappedSignature {
  catalog::Wire wire;        // the wire that minted it: `client` for a plain (unwrapped) signature
  std::string reasoning_id;  // from the envelope; "" when not wrapped
  std::string payload;
  bool wrapped = false;
};

// The string to show a `client`-wire client for a signature minted by `wire`: the payload
// unchanged when `wire` is `client` or unknown, else the envelope.
std::string wrapSignature(catalog::Wire client, std::optional<catalog::Wire> wire, std::string_view reasoning_id,
                          std::string_view payload);

// The inverse of wrapSignature: a string that is not a well-formed envelope of another wire is
// the client wire's own, returned as it is.
UnwrappedSignature unwrapSignature(catalog::Wire client, std::string_view text);

}  // namespace sluice::wire
