#pragma once
// What the mock received: the request as it arrived, kept for echo, /_mock/last and stats. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::mock {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct ReceivedRequest {
  std::string method;
  std::string path;   // without the query string
  std::string query;  // without the '?'
  HeaderList headers; // as received, in order
  std::string body;
};

// The first value of header `name` (case-insensitive), or nullopt.
std::optional<std::string> findHeader(const HeaderList& headers, std::string_view name);

// The value of query parameter `name` (not URL-decoded), or nullopt.
std::optional<std::string> findQueryParam(std::string_view query, std::string_view name);

// {"method","path","query","headers":{lower-case name: value (repeats joined with ", ")},
//  "body": raw text, "json": the parsed body or null}.
nlohmann::ordered_json toJson(const ReceivedRequest& request);

}  // namespace sluice::mock
