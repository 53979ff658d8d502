#include "server/protection/request_texts.h"

#include "server/protection/scan_util.h"

namespace sluice::protection::texts {
namespace {

constexpr size_t kMaxDataUrlHeaderBytes = 256;

// A MIME token (RFC 2045): visible ASCII except separators.
bool isTokenChar(char c) { return isAlnum(c) || std::string_view("!#$%&'*+-.^_`{|}~").contains(c); }

// A token from `p`; its end (== p when there is none).
size_t token(std::string_view s, size_t p) {
  while (p < s.size() && isTokenChar(s[p])) ++p;
  return p;
}

}  // namespace

bool isDataUrl(std::string_view s) {
  if (s.size() < 5 || !equalsFolded(s.substr(0, 5), "data:")) return false;
  s = s.substr(0, std::min(s.size(), kMaxDataUrlHeaderBytes));
  size_t p = token(s, 5);
  if (p == 5 || at(s, p) != '/') return false;
  const size_t subtype = p + 1;
  p = token(s, subtype);
  if (p == subtype) return false;
  // Parameters: ";name=value" (a token or a quoted string), or ";base64" last.
  while (at(s, p) == ';') {
    const size_t name = p + 1;
    p = token(s, name);
    if (p == name) return false;
    if (at(s, p) != '=') {
      if (!equalsFolded(s.substr(name, p - name), "base64") || at(s, p) != ',') return false;
      break;
    }
    ++p;
    if (at(s, p) == '"') {
      const size_t close = s.find('"', p + 1);
      if (close == std::string_view::npos) return false;
      p = close + 1;
    } else {
      const size_t value = p;
      p = token(s, value);
      if (p == value) return false;
    }
  }
  return at(s, p) == ',';
}

bool isPayloadKey(std::string_view key) {
  static constexpr std::array<std::string_view, 14> kKeys = {
      "type",     "id",        "tool_use_id", "call_id",   "media_type", "mime_type",         "file_data",
      "file_id",  "image_url", "file_url",    "signature", "encrypted_content", "cache_control", "format"};
  for (const std::string_view k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

bool isMediaKey(std::string_view key) {
  static constexpr std::array<std::string_view, 11> kKeys = {"url",   "image_url", "file_url", "file_data",
                                                            "data",  "image",     "audio",    "input_audio",
                                                            "video", "file",      "b64_json"};
  for (const std::string_view k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

}  // namespace sluice::protection::texts
