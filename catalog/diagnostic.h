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

// A value that came from the environment and how a diagnostic shows it instead: "${NAME}", or the
// whole catalog text it was interpolated into.
struct Redaction {
  std::string value;
  std::string shown;
};

// Replaces, in every message, each occurrence of a redaction's value by its `shown` text, longest
// values first. Values shorter than kMinRedactedValue characters are left alone.
// NOTE: a value that short is no secret, and replacing it would garble the message around it
// (every "1" of "line 1").
constexpr size_t kMinRedactedValue = 4;
void redact(std::vector<Diagnostic>& diagnostics, std::vector<Redaction> redactions);

}  // namespace sluice::catalog
