#include "server/scim/filter.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "server/scim/bounds.h"

namespace sluice::scim {

namespace {

constexpr std::string_view kCorePrefix = "urn:ietf:params:scim:schemas:core:2.0:";

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool attributeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ':' || c == '_' || c == '-' || c == '$';
}

ScimError served(std::string why) {
  return invalidFilter(std::move(why) + ": the gateway serves one comparison, ATTRIBUTE eq \"VALUE\"");
}

}  // namespace

std::string canonicalAttribute(std::string_view name) {
  std::string text = lower(name);
  if (text.starts_with(lower(kCorePrefix))) {
    // "urn:…:core:2.0:User:userName" → "username"
    const size_t resource_end = text.find(':', kCorePrefix.size());
    text = resource_end == std::string::npos ? std::string() : text.substr(resource_end + 1);
  }
  return text;
}

std::expected<Filter, ScimError> parseFilter(std::string_view text) {
  if (text.size() > kMaxFilterBytes) return std::unexpected(invalidFilter("the filter is longer than 1024 bytes"));
  size_t at = 0;
  const auto skipBlanks = [&] {
    while (at < text.size() && blank(text[at])) ++at;
  };
  skipBlanks();
  const size_t name_start = at;
  while (at < text.size() && attributeChar(text[at])) ++at;
  if (at == name_start) return std::unexpected(served("no attribute name"));
  Filter filter;
  filter.attribute = canonicalAttribute(text.substr(name_start, at - name_start));
  if (filter.attribute.empty()) return std::unexpected(served("no attribute name"));
  if (at < text.size() && !blank(text[at])) return std::unexpected(served("unexpected '" + std::string(1, text[at]) + "'"));
  skipBlanks();
  const size_t op_start = at;
  while (at < text.size() && std::isalpha(static_cast<unsigned char>(text[at]))) ++at;
  const std::string op = lower(text.substr(op_start, at - op_start));
  if (op != "eq") {
    return std::unexpected(served(op.empty() ? std::string("no operator") : "operator '" + op + "' is not served"));
  }
  skipBlanks();
  if (at >= text.size() || text[at] != '"') return std::unexpected(served("the value must be a quoted string"));
  // The string literal: up to the first unescaped quote.
  size_t end = at + 1;
  while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
  if (end >= text.size()) return std::unexpected(invalidFilter("the filter's string is not closed"));
  const auto parsed = nlohmann::json::parse(text.substr(at, end - at + 1), nullptr, false);
  if (!parsed.is_string()) return std::unexpected(invalidFilter("the filter's string is not valid JSON text"));
  filter.value = parsed.get<std::string>();
  at = end + 1;
  skipBlanks();
  if (at != text.size()) return std::unexpected(served("more after the comparison (and, or, not are not served)"));
  return filter;
}

}  // namespace sluice::scim
