#pragma once
// Images (and documents kept from other wires) as Gemini parts. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::gemini {

// Base64 -> {"inlineData":{mimeType,data}} (mimeType sniffed from the data when the IR has none);
// a data: URL -> inlineData too; any other URL -> {"fileData":{mimeType,fileUri}} with the
// mimeType from the IR, else guessed from the URL's extension, else "image/jpeg".
Json imagePart(const ImageSource& image);

// The media type a URL's file extension names ("https://x/a.PNG?v=1" -> "image/png"), or
// nullopt when the extension is unknown.
std::optional<std::string> mediaTypeFromUrl(std::string_view url);

// An Anthropic `document` block kept as Opaque (base64 / url / text source) as a Gemini part, or
// nullopt when it has no source Gemini can take.
std::optional<Json> documentPart(const Json& anthropic_document);

}  // namespace sluice::wire::gemini
