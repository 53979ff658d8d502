#include "catalog/diagnostic.h"

#include <algorithm>

namespace sluice::catalog {

std::string Diagnostic::format() const {
  std::string out = file;
  if (line > 0) {
    out += ':' + std::to_string(line) + ':' + std::to_string(column);
  }
  out += severity == Severity::Error ? ": error: " : ": warning: ";
  out += message;
  return out;
}

bool hasErrors(const std::vector<Diagnostic>& diagnostics) {
  return std::ranges::any_of(diagnostics,
                             [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

}  // namespace sluice::catalog
