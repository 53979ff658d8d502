#pragma once
// Compiles the catalog's source texts into an immutable Catalog.
//
// Pure: a function of the texts, the environment map and the secret files' contents passed in.
// No file, environment or clock reads happen here (server/config/catalog_loader.h does the I/O).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/diagnostic.h"

namespace sluice::catalog {

struct SourceText {
  std::string path;  // displayed in diagnostics, e.g. "services/ai/models.yaml"
  std::string text;
};

struct CatalogSources {
  // nullopt: the file does not exist (an error for the five ai/ files; rules.yaml is optional,
  // its absence means every route is open).
  std::optional<SourceText> credentials;
  std::optional<SourceText> providers;
  std::optional<SourceText> models;
  std::optional<SourceText> deployments;
  std::optional<SourceText> gateway;
  std::optional<SourceText> access_rules;
  std::map<std::string, std::string> env;           // for ${VAR}, ${VAR:-default} and env:NAME
  std::map<std::string, std::string> secret_files;  // path -> content, for file:PATH secrets and the vault
  // When set, the only variables a ${NAME} may read (the console's editor passes
  // variablesReferenced() of the files on disk). The master key's variables and those credentials
  // name (`secret: env:NAME`) are never readable by a ${NAME}, whatever this holds.
  std::optional<std::set<std::string>> allowed_variables;
};

struct CompileResult {
  std::shared_ptr<const Catalog> catalog;  // null when any Error diagnostic was produced
  std::vector<Diagnostic> diagnostics;     // every problem found, errors and warnings, in file order
  bool ok() const { return catalog != nullptr; }
};

// Never throws on bad input: every problem becomes a Diagnostic. No diagnostic shows a value read
// from the environment: it shows the ${NAME} (or the catalog text) the value came from.
CompileResult compileCatalog(const CatalogSources& sources);

// The PATHs of `secret: file:PATH` references and of gateway.data_protection's `vault: file:PATH`
// (after interpolation), so the loader can read them before calling compileCatalog() (a vault at
// most kMaxVaultFileBytes + 1 bytes). Unparseable input yields an empty list.
std::vector<std::string> secretFilesReferenced(const CatalogSources& sources);

// The NAMEs of every ${NAME} in the scalars (keys and values, comments excepted) of the given
// files. A file that does not parse contributes nothing.
std::set<std::string> variablesReferenced(const CatalogSources& sources);

// The variables credentials read their secret from (the NAME of each `secret: env:NAME`).
std::set<std::string> secretVariables(const CatalogSources& sources);

}  // namespace sluice::catalog
