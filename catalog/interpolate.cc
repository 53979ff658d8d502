#include "catalog/interpolate.h"

#include <optional>

namespace sluice::catalog {

namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

bool isValidName(std::string_view name) {
  if (name.empty() || !isNameStart(name.front())) return false;
  for (char c : name) {
    if (!isNameChar(c)) return false;
  }
  return true;
}

}  // namespace

std::expected<std::string, std::string> interpolate(std::string_view text, const Environment& env) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      return std::unexpected("unterminated '${' in '" + std::string(text) + "'");
    }
    std::string_view inner = text.substr(i + 2, close - i - 2);
    std::string_view name = inner;
    std::optional<std::string_view> fallback;
    if (size_t sep = inner.find(":-"); sep != std::string_view::npos) {
      name = inner.substr(0, sep);
      fallback = inner.substr(sep + 2);
    }
    if (!isValidName(name)) {
      return std::unexpected("invalid variable name '" + std::string(name) + "' in '${" +
                             std::string(inner) + "}'; expected letters, digits and '_'");
    }
    auto found = env.find(std::string(name));
    if (fallback) {
      // POSIX ':-': the default also replaces a variable that is set but empty.
      out += (found != env.end() && !found->second.empty()) ? std::string_view(found->second)
                                                            : *fallback;
    } else if (found != env.end()) {
      out += found->second;
    } else {
      return std::unexpected("environment variable " + std::string(name) +
                             " is not set (write ${" + std::string(name) +
                             ":-default} to give a default)");
    }
    i = close + 1;
  }
  return out;
}

}  // namespace sluice::catalog
