#include "catalog/compiler.h"

namespace sluice::catalog {

CompileResult compileCatalog(const CatalogSources&) { return {}; }

std::vector<std::string> secretFilesReferenced(const CatalogSources&) { return {}; }

}  // namespace sluice::catalog
