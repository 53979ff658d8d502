#pragma once
// Reads a services directory and the process environment, then compiles the catalog.
// The only place catalog files, secret files and the environment are read.

#include <map>
#include <string>

#include "catalog/compiler.h"

namespace sluice::config {

// Reads DIR/ai/{credentials,providers,models,deployments,gateway}.yaml and
// DIR/access-control/rules.yaml (absent files are passed as absent; the compiler reports them),
// the `file:` secrets they name, and compiles with `env`. Never throws for missing files.
catalog::CompileResult loadCatalog(const std::string& services_dir, const std::map<std::string, std::string>& env);

// The process environment as a map.
std::map<std::string, std::string> processEnvironment();

}  // namespace sluice::config
