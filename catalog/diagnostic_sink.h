#pragma once
// Collects the diagnostics of one compilation. Not thread-safe; one per compileCatalog() call.

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
  std::vector<Diagnostic> take() { return std::move(items_); }

 private:
  void add(Severity severity, const Location& where, std::string message) {
    items_.push_back({severity, where.file, where.line, where.column, std::move(message)});
  }

  std::vector<Diagnostic> items_;
};

}  // namespace sluice::catalog
