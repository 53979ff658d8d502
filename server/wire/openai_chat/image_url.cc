#include "server/wire/openai_chat/image_url.h"

namespace sluice::wire::openai_chat {

std::optional<ImageSource> imageFromUrl(std::string_view url) {
  if (url.empty()) return std::nullopt;
  constexpr std::string_view kDataScheme = "data:";
  if (!url.starts_with(kDataScheme)) {
    ImageSource image;
    image.kind = ImageSource::Kind::Url;
    image.url = std::string(url);
    return image;
  }
  const auto comma = url.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view header = url.substr(kDataScheme.size(), comma - kDataScheme.size());
  constexpr std::string_view kBase64 = ";base64";
  if (!header.ends_with(kBase64)) return std::nullopt;
  header.remove_suffix(kBase64.size());
  ImageSource image;
  image.kind = ImageSource::Kind::Base64;
  // Parameters such as ";charset=..." may sit between the type and ";base64": keep the type only.
  image.media_type = std::string(header.substr(0, header.find(';')));
  image.data = std::string(url.substr(comma + 1));
  return image;
}

std::string urlForImage(const ImageSource& image) {
  if (image.kind == ImageSource::Kind::Url) return image.url;
  return "data:" + (image.media_type.empty() ? std::string("image/png") : image.media_type) + ";base64," + image.data;
}

}  // namespace sluice::wire::openai_chat
