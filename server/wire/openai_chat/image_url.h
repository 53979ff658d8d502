#pragma once
// Chat's image_url.url <-> the IR's ImageSource.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// "data:<media type>;base64,<payload>" -> Base64 source; any other URL -> Url source (the provider
// fetches it). nullopt for an empty URL or a data: URL that is not base64.
std::optional<ImageSource> imageFromUrl(std::string_view url);

// The url an image is sent as: its URL, or a base64 data URL built from media type and payload.
std::string urlForImage(const ImageSource& image);

}  // namespace sluice::wire::openai_chat
