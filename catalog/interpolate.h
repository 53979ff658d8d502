#pragma once
// ${VAR} and ${VAR:-default} substitution in catalog strings, and which variables may be read.

#include <expected>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::catalog {

using Environment = std::map<std::string, std::string>;

// Which names a ${NAME} may read. Secrets never reach a catalog string: a credential names its
// variable with `secret: env:NAME`, read by the credential alone.
struct VariablePolicy {
  // Names of secrets (the `env:NAME` of every credential). Together with SLUICE_MASTER_KEY and
  // every name that starts with it, a ${NAME} of one is refused.
  std::set<std::string> secret;
  // When set, the only names a ${NAME} may read (the console's editor: the names the catalog on
  // disk already uses). Unset: any name.
  std::optional<std::set<std::string>> allowed;
};

// One variable read from `env` while interpolating (a default taken from the text is not one).
struct Substitution {
  std::string name;
  std::string value;
};

// Replaces every ${NAME} with the value of NAME in `env` and every ${NAME:-default} with that value
// when NAME is set and non-empty, else with `default` (taken literally up to the closing brace).
// "$${" produces a literal "${"; any other '$' is kept as is. NAME is [A-Za-z_][A-Za-z0-9_]*.
// On failure returns a message naming the problem: an unset NAME without default, an unterminated
// "${", a malformed NAME, a secret NAME ("secret variable NAME used outside a credential", with or
// without a default) or a NAME outside `policy.allowed`. Messages never hold a variable's value.
// When `substituted` is given, each variable read from `env` is appended to it.
std::expected<std::string, std::string> interpolate(std::string_view text, const Environment& env,
                                                    const VariablePolicy& policy = {},
                                                    std::vector<Substitution>* substituted = nullptr);

// True for SLUICE_MASTER_KEY and every name that starts with it (SLUICE_MASTER_KEY_FILE,
// SLUICE_MASTER_KEY_OLD, ...).
bool isMasterKeyVariable(std::string_view name);

// The NAMEs of the well-formed ${NAME} and ${NAME:-default} references in `text` ("$${" skipped).
std::set<std::string> variablesReferenced(std::string_view text);

}  // namespace sluice::catalog
