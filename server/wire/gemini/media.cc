#include "server/wire/gemini/media.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "server/wire/json_access.h"

namespace sluice::wire::gemini {
namespace {

constexpr std::string_view kDefaultImageType = "image/jpeg";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The type base64 data starts with, from the encoded magic numbers.
std::string sniffBase64(std::string_view data) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kMagic = {{
      {"iVBORw0KGgo", "image/png"},
      {"/9j/", "image/jpeg"},
      {"R0lGOD", "image/gif"},
      {"UklGR", "image/webp"},
      {"JVBERi0", "application/pdf"},
  }};
  for (const auto& [prefix, type] : kMagic) {
    if (data.starts_with(prefix)) return std::string(type);
  }
  return std::string(kDefaultImageType);
}

Json inlineData(std::string mime_type, std::string data) {
  return Json{{"inlineData", Json{{"mimeType", std::move(mime_type)}, {"data", std::move(data)}}}};
}

Json fileData(std::string mime_type, std::string uri) {
  return Json{{"fileData", Json{{"mimeType", std::move(mime_type)}, {"fileUri", std::move(uri)}}}};
}

// "data:image/png;base64,AAAA" -> ("image/png", "AAAA"); nullopt unless it is a base64 data URL.
std::optional<std::pair<std::string, std::string>> splitDataUrl(std::string_view url) {
  if (!url.starts_with("data:")) return std::nullopt;
  const size_t comma = url.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view header = url.substr(5, comma - 5);
  if (!header.ends_with(";base64")) return std::nullopt;
  header.remove_suffix(7);
  return std::pair{std::string(header), std::string(url.substr(comma + 1))};
}

}  // namespace

std::optional<std::string> mediaTypeFromUrl(std::string_view url) {
  const size_t cut = url.find_first_of("?#");
  if (cut != std::string_view::npos) url = url.substr(0, cut);
  const size_t slash = url.rfind('/');
  const size_t dot = url.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return std::nullopt;
  const std::string extension = lower(url.substr(dot + 1));
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kTypes = {{
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"heic", "image/heic"},
      {"heif", "image/heif"},
      {"pdf", "application/pdf"},
      {"mp4", "video/mp4"},
  }};
  for (const auto& [ext, type] : kTypes) {
    if (extension == ext) return std::string(type);
  }
  return std::nullopt;
}

Json imagePart(const ImageSource& image) {
  if (image.kind == ImageSource::Kind::Base64) {
    return inlineData(image.media_type.empty() ? sniffBase64(image.data) : image.media_type, image.data);
  }
  if (auto data_url = splitDataUrl(image.url)) {
    std::string type = data_url->first.empty() ? sniffBase64(data_url->second) : data_url->first;
    return inlineData(std::move(type), std::move(data_url->second));
  }
  std::string type = image.media_type;
  if (type.empty()) type = mediaTypeFromUrl(image.url).value_or(std::string(kDefaultImageType));
  return fileData(std::move(type), image.url);
}

std::optional<Json> documentPart(const Json& anthropic_document) {
  if (stringMember(anthropic_document, "type") != "document") return std::nullopt;
  const Json* source = objectMember(anthropic_document, "source");
  if (source == nullptr) return std::nullopt;
  const std::string kind = stringMember(*source, "type");
  if (kind == "base64") {
    std::string data = stringMember(*source, "data");
    if (data.empty()) return std::nullopt;
    std::string type = stringMember(*source, "media_type");
    return inlineData(type.empty() ? sniffBase64(data) : std::move(type), std::move(data));
  }
  if (kind == "url") {
    std::string url = stringMember(*source, "url");
    if (url.empty()) return std::nullopt;
    std::string type = mediaTypeFromUrl(url).value_or("application/pdf");
    return fileData(std::move(type), std::move(url));
  }
  if (kind == "text") {
    std::string text = stringMember(*source, "data");
    if (text.empty()) return std::nullopt;
    return Json{{"text", std::move(text)}};
  }
  return std::nullopt;
}

}  // namespace sluice::wire::gemini
