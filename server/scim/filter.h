#pragma once
// SCIM filters as identity providers send them (RFC 7644 §3.4.2.2), the subset the gateway serves:
// one comparison `ATTRIBUTE eq "VALUE"`, the attribute name in any case, optionally prefixed with
// its core schema URN. Okta and Entra ID send nothing else when they look a user or group up
// (userName, externalId, displayName, emails.value, id). Also the value filter of a PATCH path
// (`members[value eq "…"]`, `emails[type eq "work"]`). Pure.

#include <expected>
#include <string>
#include <string_view>

#include "server/scim/scim_error.h"

namespace sluice::scim {

struct Filter {
  std::string attribute;  // lower case, core schema URN removed: "username", "emails.value", "members.value"
  std::string value;      // the compared string, JSON escapes decoded
};

// `text` as one eq comparison. invalidFilter (400) for anything else (another operator, and/or,
// a value that is not a string, more than kMaxFilterBytes), saying what is served.
std::expected<Filter, ScimError> parseFilter(std::string_view text);

// `name` in lower case with "urn:ietf:params:scim:schemas:core:2.0:User:" (or Group:) removed.
std::string canonicalAttribute(std::string_view name);

}  // namespace sluice::scim
