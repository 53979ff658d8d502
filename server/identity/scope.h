#pragma once
// Which project a request is attributed to. Pure: no I/O, never throws.
//
// In order: the `x-sluice-scope-project` header, honoured only for a project the caller belongs
// to; else the project the API key is bound to; else the member's primary project; else none.
// A key bound to a project attributes every request to it: a header naming another project is
// refused, so a project key cannot be used to spend another project's budget.

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "server/identity/caller.h"

namespace sluice::identity {

inline constexpr std::string_view kScopeProjectHeader = "x-sluice-scope-project";

enum class ScopeSource { Header, ApiKey, Primary, None };
// "header" | "key" | "primary" | "none". The audit row's project_source uses the first three and
// NULL for none (docs/audit.md).
std::string_view toString(ScopeSource source);

struct Scope {
  std::optional<std::string> project;
  ScopeSource source = ScopeSource::None;
};

// A refused attribution: HTTP 403 in the caller's format, error key `scope_denied`.
struct ScopeRefusal {
  std::string project;  // the project asked for
  std::string message;  // names the project and the member, never a key
};

inline constexpr std::string_view kScopeDenied = "scope_denied";

// `header`: the header's value as received (nullopt or blank when absent).
std::expected<Scope, ScopeRefusal> attributeScope(const Caller& caller, std::optional<std::string_view> header);

}  // namespace sluice::identity
