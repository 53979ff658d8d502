#pragma once
// A SCIM request body as JSON, bounded before it is parsed. Pure.

#include <expected>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/scim/scim_error.h"

namespace sluice::scim {

// The JSON value of `text`. invalidSyntax (400) when it is not JSON, or when it opens more than
// kMaxJsonDepth arrays or objects inside one another (checked before parsing); 413 over
// kMaxBodyBytes.
std::expected<nlohmann::json, ScimError> parseBody(std::string_view text);

}  // namespace sluice::scim
