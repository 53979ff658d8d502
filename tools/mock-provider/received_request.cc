#include "tools/mock-provider/received_request.h"

#include <algorithm>
#include <cctype>

namespace sluice::mock {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::string> findHeader(const HeaderList& headers, std::string_view name) {
  for (const auto& [key, value] : headers)
    if (equalsIgnoreCase(key, name)) return value;
  return std::nullopt;
}

std::optional<std::string> findQueryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) return std::string(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

nlohmann::ordered_json toJson(const ReceivedRequest& request) {
  nlohmann::ordered_json headers = nlohmann::ordered_json::object();
  for (const auto& [key, value] : request.headers) {
    const std::string name = lower(key);
    if (headers.contains(name)) headers[name] = headers[name].get<std::string>() + ", " + value;
    else headers[name] = value;
  }
  auto parsed = nlohmann::ordered_json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  return {{"method", request.method},
          {"path", request.path},
          {"query", request.query},
          {"headers", headers},
          {"body", request.body},
          {"json", parsed.is_discarded() ? nlohmann::ordered_json(nullptr) : parsed}};
}

}  // namespace sluice::mock
