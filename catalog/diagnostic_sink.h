#pragma once
// Collects the diagnostics of one compilation. Not thread-safe; one per compileCatalog() call.
// Values interpolated from the environment are noted as they are read, and take() shows them in
// every message as the catalog text they came from, never as the value.

#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/diagnostic.h"

namespace sluice::catalog {

class DiagnosticSink {
 public:
  void error(const Location& where, std::string message) {
    add(Severity::Error, where, std::move(message));
  }
  void warning(const Location& where, std::string message) {
    add(Severity::Warning, where, std::move(message));
  }
  bool hasErrors() const { return catalog::hasErrors(items_); }
  size_t size() const { return items_.size(); }
  // `value` came from the environment; messages show `shown` ("${NAME}" or the raw text) instead.
  void hide(std::string value, std::string shown) { redactions_.push_back({std::move(value), std::move(shown)}); }
  std::vector<Diagnostic> take() {
    redact(items_, std::move(redactions_));
    redactions_.clear();
    return std::move(items_);
  }

 private:
  void add(Severity severity, const Location& where, std::string message) {
    items_.push_back({severity, where.file, where.line, where.column, std::move(message)});
  }

  std::vector<Diagnostic> items_;
  std::vector<Redaction> redactions_;
};

}  // namespace sluice::catalog
