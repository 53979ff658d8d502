#pragma once
// ${VAR} and ${VAR:-default} substitution in catalog strings.

#include <expected>
#include <map>
#include <string>
#include <string_view>

namespace sluice::catalog {

using Environment = std::map<std::string, std::string>;

// Replaces every ${NAME} with the value of NAME in `env` and every ${NAME:-default} with that value
// when NAME is set and non-empty, else with `default` (taken literally up to the closing brace).
// "$${" produces a literal "${"; any other '$' is kept as is. NAME is [A-Za-z_][A-Za-z0-9_]*.
// On failure returns a message naming the problem: an unset NAME without default, an unterminated
// "${", or a malformed NAME.
std::expected<std::string, std::string> interpolate(std::string_view text, const Environment& env);

}  // namespace sluice::catalog
