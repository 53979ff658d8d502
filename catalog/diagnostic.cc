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

void redact(std::vector<Diagnostic>& diagnostics, std::vector<Redaction> redactions) {
  std::erase_if(redactions, [](const Redaction& r) { return r.value.size() < kMinRedactedValue || r.value == r.shown; });
  if (redactions.empty()) return;
  std::ranges::stable_sort(redactions, [](const Redaction& a, const Redaction& b) { return a.value.size() > b.value.size(); });
  for (Diagnostic& diagnostic : diagnostics) {
    for (const Redaction& redaction : redactions) {
      std::string& message = diagnostic.message;
      for (size_t at = message.find(redaction.value); at != std::string::npos;
           at = message.find(redaction.value, at + redaction.shown.size())) {
        message.replace(at, redaction.value.size(), redaction.shown);
      }
    }
  }
}

}  // namespace sluice::catalog
