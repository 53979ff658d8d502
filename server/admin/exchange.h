#pragma once
// One console request as the API functions see it (method, path, query, body, who), and the reply
// they return. Keeps Poco out of the functions that build JSON, so they read like the API.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::admin {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static Reply json(const nlohmann::json& value, int status = 200);
  // {"error": {"key": key, "message": message}}
  static Reply error(int status, const std::string& key, const std::string& message);
  static Reply redirect(const std::string& location);
};

struct Exchange {
  std::string method;
  std::string path;                          // decoded path, no query
  std::map<std::string, std::string> query;  // decoded; the last value of a repeated name wins
  std::string body;
  std::string user;                          // the signed-in admin; empty for open pages

  // query[name] or `fallback`; an empty value counts as absent.
  std::string param(const std::string& name, const std::string& fallback = "") const;
  std::optional<std::string> optionalParam(const std::string& name) const;
};

// "1h", "30m", "7d", "2w", "90s" → seconds; nullopt when malformed.
std::optional<long long> parseDurationSeconds(const std::string& text);

// Decodes application/x-www-form-urlencoded pairs ("a=1&b=x%20y").
std::map<std::string, std::string> parseQuery(const std::string& text);

// `value` made safe inside HTML text and attributes.
std::string htmlEscape(const std::string& value);

}  // namespace sluice::admin
