#pragma once
// One Anthropic content block <-> one IR ContentBlock. Shared by the request and response
// halves of the codec, so a block reads and writes the same way wherever it appears.

#include <expected>
#include <optional>
#include <string>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::anthropic {

// Strict: a client's request; a block of a known type with a field of the wrong type is a 400
// naming `path` + the field. Lenient: a provider's answer; such fields read as empty values.
enum class Strictness { Strict, Lenient };

// Known types: text, image (base64 and url sources), tool_use, tool_result (string or block
// content, is_error), thinking, redacted_thinking. Any other type (document, server_tool_use,
// web_search_tool_result, an image with a file source, ...) becomes an Opaque block holding the
// JSON as received with raw_wire Anthropic. A thinking signature or redacted payload is unwrapped
// (server/wire/signature_envelope.h) so it keeps the wire that minted it.
// cache_control is kept on every block; text citations are dropped.
std::expected<ContentBlock, ApiError> decodeBlock(const Json& block, const std::string& path, Strictness strictness);

// Who will read the encoded block.
//  Provider: an Anthropic upstream. Thinking is sent only when signature_wire is Anthropic and
//            redacted thinking only when it is Anthropic or unknown (a foreign signature would be
//            rejected); Opaque blocks only when raw_wire is Anthropic.
//  Client:   an Anthropic client (Claude Code, the SDK). Thinking always, foreign signatures
//            wrapped so they come back intact; Opaque blocks only when raw_wire is Anthropic;
//            no cache_control.
enum class Audience { Provider, Client };

// The block's Anthropic JSON, or nullopt when this audience cannot be sent the block.
std::optional<Json> encodeBlock(const ContentBlock& block, Audience audience);

}  // namespace sluice::wire::anthropic
