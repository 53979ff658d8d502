#pragma once
// A valid catalog built from strings, and helpers to break it one rule at a time and to point at
// the line and column a diagnostic should name.

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "catalog/compiler.h"

namespace sluice::catalog {

// So that Boost.Test can print the catalog's enums when an expectation fails.
inline std::ostream& operator<<(std::ostream& os, Wire v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, ClientFamily v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, CredentialKind v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, Strategy v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, Trust v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, RouteKind v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, QuotaScope v) { return os << toString(v); }
inline std::ostream& operator<<(std::ostream& os, QuotaMode v) {
  return os << (v == QuotaMode::Warn ? "warn" : "enforce");
}
inline std::ostream& operator<<(std::ostream& os, AccessDefault v) {
  return os << (v == AccessDefault::Open ? "open" : "closed");
}
inline std::ostream& operator<<(std::ostream& os, Severity v) {
  return os << (v == Severity::Error ? "error" : "warning");
}
inline std::ostream& operator<<(std::ostream& os, Resolution::Kind v) {
  switch (v) {
    case Resolution::Kind::Model: return os << "model";
    case Resolution::Kind::Alias: return os << "alias";
    case Resolution::Kind::Retired: return os << "retired";
    case Resolution::Kind::Unknown: return os << "unknown";
  }
  return os;
}

}  // namespace sluice::catalog

namespace sluice::catalog::testing {

// Four providers (one personal), four models, the routes and quotas of CATALOG.md's examples and
// an access rules file. Compiles with no diagnostic at all.
CatalogSources baselineSources();

// Replaces the single occurrence of `from`; fails the current test when it occurs 0 or 2+ times.
void edit(std::optional<SourceText>& file, std::string_view from, std::string_view to);
void append(std::optional<SourceText>& file, std::string_view text);

// The 1-based position of the `occurrence`-th `needle` in the file.
Location at(const std::optional<SourceText>& file, std::string_view needle, int occurrence = 1);

// The position of the first `needle` at or after the first `context`.
Location atIn(const std::optional<SourceText>& file, std::string_view context, std::string_view needle);

// Every diagnostic formatted, one a line: printed when an expectation fails.
std::string dump(const CompileResult& result);

// Expects a diagnostic of `severity` at exactly `where` (column unchecked when 0) whose message
// contains `text`.
void expectDiagnostic(const CompileResult& result, Severity severity, const Location& where,
                      std::string_view text);
void expectError(const CompileResult& result, const Location& where, std::string_view text);

// Compiles and expects no diagnostic at all.
std::shared_ptr<const Catalog> compileClean(const CatalogSources& sources);

}  // namespace sluice::catalog::testing
