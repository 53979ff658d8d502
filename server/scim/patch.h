#pragma once
// PATCH bodies (RFC 7644 §3.5.2) as Okta and Entra ID send them, made regular: the operation name
// in any case ("Replace", "add", "REMOVE"); a path-less operation whose value is an object becomes
// one operation per member of it ({"op":"replace","value":{"active":false}} → path "active");
// paths with a value filter (`members[value eq "…"]`, `emails[type eq "work"].value`) and
// sub-attributes (`name.givenName`) split into their parts; attribute names in lower case, the
// core schema URN removed. What a resource does with the operations is user_resource.h's and
// group_resource.h's. Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/scim/filter.h"
#include "server/scim/scim_error.h"

namespace sluice::scim {

inline constexpr const char* kPatchOpSchema = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

enum class PatchKind { Add, Remove, Replace };

struct PatchPath {
  std::string attribute;          // "active", "name", "emails", "members", an extension URN, …
  std::optional<Filter> filter;   // members[value eq "x"] → {"value", "x"}
  std::string sub_attribute;      // name.givenName → "givenname"; emails[…].value → "value"
};

struct PatchOperation {
  PatchKind kind = PatchKind::Replace;
  std::optional<PatchPath> path;  // absent only for a remove without path, which is refused
  nlohmann::json value;           // null when the operation had none
};

// One path: ATTRIBUTE[.SUB] or ATTRIBUTE[FILTER][.SUB]. invalidPath (400) when malformed.
std::expected<PatchPath, ScimError> parsePath(std::string_view text);

// The operations of a PatchOp body, in order, path-less objects expanded. invalidSyntax when the
// body is not a PatchOp (no Operations array, more than kMaxOperations, an op that is not
// add/remove/replace), invalidPath for a bad path, noTarget for a remove without a path.
std::expected<std::vector<PatchOperation>, ScimError> parsePatch(const nlohmann::json& body);

// A boolean as identity providers write one: true/false, or the strings "true"/"false" in any
// case (Entra ID sends "False"). nullopt for anything else.
std::optional<bool> booleanOf(const nlohmann::json& value);

}  // namespace sluice::scim
