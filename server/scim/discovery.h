#pragma once
// The SCIM discovery resources (RFC 7644 §4): what this server supports, said honestly — PATCH
// yes; filter yes (one eq comparison, at most kMaxPageSize results a page); bulk, sort, ETags and
// changePassword no; authentication by a bearer token. Static. Pure.

#include <string_view>

#include <nlohmann/json.hpp>

namespace sluice::scim {

nlohmann::json serviceProviderConfig(std::string_view base_url);
// The ListResponse of the User and Group resource types.
nlohmann::json resourceTypes(std::string_view base_url);
// The ListResponse of the User, Group and the gateway's extension schema (the attributes kept).
nlohmann::json schemas(std::string_view base_url);

}  // namespace sluice::scim
