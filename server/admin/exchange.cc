#include "server/admin/exchange.h"

#include <cctype>

#include "server/text/hex.h"

namespace sluice::admin {

Reply Reply::json(const nlohmann::json& value, int status) {
  Reply reply;
  reply.status = status;
  reply.body = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return reply;
}

Reply Reply::error(int status, const std::string& key, const std::string& message) {
  return json({{"error", {{"key", key}, {"message", message}}}}, status);
}

Reply Reply::redirect(const std::string& location) {
  Reply reply;
  reply.status = 302;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = "see " + location + "\n";
  reply.headers.emplace_back("Location", location);
  return reply;
}

std::string Exchange::param(const std::string& name, const std::string& fallback) const {
  auto it = query.find(name);
  return it == query.end() || it->second.empty() ? fallback : it->second;
}

std::optional<std::string> Exchange::optionalParam(const std::string& name) const {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::optional<long long> parseDurationSeconds(const std::string& text) {
  if (text.size() < 2 || text.size() > 12) return std::nullopt;
  long long number = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    number = number * 10 + (text[i] - '0');
  }
  switch (text.back()) {
    case 's': return number;
    case 'm': return number * 60;
    case 'h': return number * 3600;
    case 'd': return number * 86400;
    case 'w': return number * 7 * 86400;
    default: return std::nullopt;
  }
}

namespace {

std::string decode(const std::string& encoded) { return text::percentDecode(encoded, /*plus_is_space=*/true); }

}  // namespace

std::map<std::string, std::string> parseQuery(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('&', start);
    if (end == std::string::npos) end = text.size();
    const std::string pair = text.substr(start, end - start);
    if (!pair.empty()) {
      const size_t equals = pair.find('=');
      if (equals == std::string::npos) out[decode(pair)] = "";
      else out[decode(pair.substr(0, equals))] = decode(pair.substr(equals + 1));
    }
    start = end + 1;
  }
  return out;
}

std::string htmlEscape(const std::string& value) {
  std::string out;
  for (const char c : value) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace sluice::admin
