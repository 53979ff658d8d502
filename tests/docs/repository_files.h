#pragma once
// The repository's own files, for the docs tests: they hold the README and the quickstart against
// the shipped catalog and the code. Tests only (they read files; SLUICE_SOURCE_DIR is the root).

#include <string>

#include "catalog/compiler.h"

namespace sluice::docs {

// The whole text of `relative` (e.g. "README.md"); fails the current test when it cannot be read.
std::string repositoryFile(const std::string& relative);

// The shipped catalog's six files (services/), as the gateway reads them; no environment.
catalog::CatalogSources shippedCatalogSources();

}  // namespace sluice::docs
