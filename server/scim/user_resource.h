#pragma once
// The SCIM User (RFC 7643 §4.1) as the gateway keeps it: the attributes it stores of a member,
// read from a POST or PUT body, changed by PATCH operations, and rendered back. Attributes it does
// not keep (phoneNumbers, addresses, title, the enterprise extension, …) are accepted and dropped,
// so an identity provider's default attribute mappings do not fail provisioning. Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/scim/meta.h"
#include "server/scim/patch.h"
#include "server/scim/scim_error.h"

namespace sluice::scim {

struct UserFields {
  std::string user_name;  // the member's name (identity's validName checks it)
  std::optional<std::string> external_id;
  std::optional<std::string> display_name;  // displayName, else name.formatted
  std::optional<std::string> given_name;
  std::optional<std::string> family_name;
  std::optional<std::string> email;  // the primary e-mail (else the first)
  bool active = true;

  bool operator==(const UserFields&) const = default;
};

// A POST or PUT body. invalidValue (400) when userName is missing or not a string, a kept
// attribute has the wrong type, a string is longer than its bound or holds a control character,
// or active is not a boolean (the strings "True"/"False" count as booleans).
std::expected<UserFields, ScimError> userFromJson(const nlohmann::json& body);

// `current` with `operations` applied in order. invalidValue as userFromJson; mutability (400)
// for removing userName; noTarget for a filter on emails that matches no kept e-mail.
std::expected<UserFields, ScimError> applyUserPatch(UserFields current, const std::vector<PatchOperation>& operations);

// What rendering needs beyond the fields.
struct UserView {
  std::string id;
  UserFields fields;
  TimePoint created;
  TimePoint last_modified;
  std::string source;  // "cli", "console", "sso", "scim"
  std::string role;    // "member", "admin"
  std::vector<std::string> groups;  // the member's group names
};

// The resource, with meta.location under `base_url`. name.formatted is displayName when no part
// is kept; emails holds the one kept address as {"value","type":"work","primary":true}.
nlohmann::json renderUser(const UserView& user, std::string_view base_url);

}  // namespace sluice::scim
