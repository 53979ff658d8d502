#pragma once
// A SCIM error (RFC 7644 §3.12): the HTTP status, the scimType where the RFC names one
// ("uniqueness", "invalidFilter", "invalidValue", "invalidSyntax", "noTarget", "mutability",
// "tooMany", "invalidPath") and a detail for people. Details never hold a secret. Pure.

#include <string>

#include <nlohmann/json.hpp>

namespace sluice::scim {

inline constexpr const char* kErrorSchema = "urn:ietf:params:scim:api:messages:2.0:Error";

struct ScimError {
  int status = 400;
  std::string scim_type;  // "" when the RFC names none (401, 404, 500, …)
  std::string detail;
};

inline ScimError invalidValue(std::string detail) { return {400, "invalidValue", std::move(detail)}; }
inline ScimError invalidSyntax(std::string detail) { return {400, "invalidSyntax", std::move(detail)}; }
inline ScimError invalidFilter(std::string detail) { return {400, "invalidFilter", std::move(detail)}; }

// {"schemas":[kErrorSchema],"status":"409","scimType":"uniqueness","detail":"…"}: status as a
// string, as RFC 7644 writes it; scimType only when set.
nlohmann::json errorBody(const ScimError& error);

}  // namespace sluice::scim
