#pragma once
// A problem found while compiling the catalog, with the place it was found.

#include <string>
#include <vector>

namespace sluice::catalog {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;   // as given in CatalogSources, e.g. "services/ai/models.yaml"
  int line = 0;       // 1-based; 0 when the problem concerns a whole (missing) file
  int column = 0;     // 1-based
  std::string message;

  // "services/ai/models.yaml:12:5: error: unknown key 'pricng' in model 'x' (expected one of ...)"
  std::string format() const;
};

bool hasErrors(const std::vector<Diagnostic>& diagnostics);

}  // namespace sluice::catalog
