#pragma once
// Resolves a Draft's cross-file references into a Catalog. Every reference that does not resolve
// and every cross-file rule of CATALOG.md's boot checks becomes a diagnostic at the place the
// reference was written. References into a file that did not load are not checked.

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "catalog/catalog.h"
#include "catalog/diagnostic_sink.h"
#include "catalog/draft.h"

namespace sluice::catalog {

// Always returns a Catalog; it is only meaningful when the sink holds no error.
Catalog link(const Draft& draft, DiagnosticSink& sink);

// The linker's working state, shared by its steps (one file per step).
struct LinkState {
  const Draft& draft;
  DiagnosticSink& sink;
  Catalog catalog;
  std::map<std::string, std::pair<std::string, Location>, std::less<>> retired;  // id -> (model, where)
  std::map<std::string, std::string, std::less<>> aliases;                       // route id -> model

  bool checkModels() const { return draft.models_loaded; }
  bool checkEndpoints() const { return draft.providers_loaded; }
  bool checkDeployments() const { return draft.deployments_loaded && draft.providers_loaded; }
};

void linkProviders(LinkState& state);
// gcp: and azure: credentials serve their own platform alone; Vertex needs gcp: (parse_clouds.cc).
void checkCloudCredentials(LinkState& state, const ProviderDraft& draft, const Provider& provider);
void linkModels(LinkState& state);
void linkDeployments(LinkState& state);
void linkRoutes(LinkState& state);
void linkAccessRules(LinkState& state);

// Looks up "provider/endpoint"; reports a malformed or unknown key as "<context> ..." and
// returns nullptr. Also nullptr, silently, when providers.yaml did not load.
const Endpoint* resolveEndpoint(LinkState& state, const Located<std::string>& key,
                                std::string_view context);

// Why an id that is not a declared model might have been written, to append to a message: a hint
// such as "; 'x' is retired, replaced by 'y'" or "; 'x' is an alias route of model 'y'", else the
// nearest declared model ids as " (did you mean 'y'?)", else "".
std::string undeclaredModelHint(const LinkState& state, std::string_view id);

// "a, b, c": for messages listing what exists.
std::string joinIds(const std::vector<std::string>& ids);

// "services/ai/models.yaml:3:3"
std::string describe(const Location& where);

}  // namespace sluice::catalog
