#include "server/identity/scope.h"

#include <cctype>

namespace sluice::identity {

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// The header is the caller's input: quoted in messages only when short and printable.
std::string quoted(std::string_view project) {
  bool printable = project.size() <= 100;
  for (const char c : project) printable = printable && c >= 0x20 && c < 0x7f;
  return printable ? "'" + std::string(project) + "'" : std::string("(an unprintable or overlong name)");
}

}  // namespace

std::string_view toString(ScopeSource source) {
  switch (source) {
    case ScopeSource::Header: return "header";
    case ScopeSource::ApiKey: return "key";
    case ScopeSource::Primary: return "primary";
    case ScopeSource::None: return "none";
  }
  return "none";
}

std::expected<Scope, ScopeRefusal> attributeScope(const Caller& caller, std::optional<std::string_view> header) {
  const std::string_view asked = header ? trimmed(*header) : std::string_view();
  Scope scope;
  if (!asked.empty()) {
    if (!caller.belongsTo(asked)) {
      return std::unexpected(ScopeRefusal{std::string(asked), "scope denied: " + caller.user +
                                                                  " is not a member of project " + quoted(asked)});
    }
    if (caller.key_project && *caller.key_project != asked) {
      return std::unexpected(ScopeRefusal{std::string(asked), "scope denied: this API key is bound to project '" +
                                                                  *caller.key_project + "', not " + quoted(asked)});
    }
    scope.project = std::string(asked);
    scope.source = ScopeSource::Header;
    return scope;
  }
  if (caller.key_project) {
    if (!caller.belongsTo(*caller.key_project)) {
      return std::unexpected(ScopeRefusal{*caller.key_project, "scope denied: this API key is bound to project '" +
                                                                   *caller.key_project + "', which " + caller.user +
                                                                   " no longer belongs to"});
    }
    scope.project = *caller.key_project;
    scope.source = ScopeSource::ApiKey;
    return scope;
  }
  if (caller.primary_project) {
    scope.project = *caller.primary_project;
    scope.source = ScopeSource::Primary;
  }
  return scope;
}

}  // namespace sluice::identity
