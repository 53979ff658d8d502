#pragma once
// The catalog as read from its files, before cross-file references are resolved: each file's
// parser fills its part and records where every reference was written, so the linker can point at
// it. Entries with local errors are kept (with defaults) so that references to them do not cascade.

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/pricing_reader.h"
#include "catalog/yaml_reader.h"

namespace sluice::catalog {

struct ProviderDraft {
  Provider provider;  // complete except that credential_id is not yet checked
  Location credential_at;
};

struct ModelDraft {
  Model model;
  PricingOverride pricing_written;
  std::vector<Location> retired_at;  // parallel to model.retired
};

struct DeploymentEntryDraft {
  Located<std::string> endpoint;  // "provider/endpoint" as written
  std::optional<std::string> upstream_model;
  PricingOverride pricing;
};

struct DeploymentListDraft {
  Located<std::string> model;
  std::vector<DeploymentEntryDraft> entries;
  bool written_empty = false;  // `model: []`, as opposed to a list whose items were all bad
};

struct RouteDeploymentDraft {
  Located<std::string> endpoint;
  int weight = 1;
};

struct RouteDraft {
  Route route;  // id, label, scope_project, strategy, requirements and where are filled
  std::optional<Located<std::string>> alias;  // alias_of: (or the deprecated alias:), as written
  std::string alias_key = "alias_of";          // the key it was written under, for messages
  std::optional<std::vector<Located<std::string>>> models;  // ids or globs, as written
  std::vector<RouteDeploymentDraft> deployments;
  std::vector<Located<std::string>> context_fallbacks;
  Location requires_at;
};

struct AccessRuleDraft {
  AccessRule rule;
  Location entity_at;
};

struct Draft {
  // Whether each file was present, parsed, and had its top-level key. References into a file
  // that did not load are not checked, so one broken file does not bury the others in noise.
  bool credentials_loaded = false;
  bool providers_loaded = false;
  bool models_loaded = false;
  bool deployments_loaded = false;
  bool gateway_loaded = false;

  std::vector<Credential> credentials;
  std::vector<ProviderDraft> providers;
  std::vector<ModelDraft> models;
  std::vector<DeploymentListDraft> deployments;
  std::optional<Located<std::string>> default_model;
  std::vector<RouteDraft> routes;
  Quotas quotas;
  std::vector<Webhook> webhooks;
  IdentitySettings identity;
  bool ad_hoc_chains = true;
  std::optional<PresenceHub> presence;
  std::optional<Location> presence_at;  // written (even if invalid)
  GatewayLimits limits;
  TelemetrySettings telemetry;
  ConsoleSettings console;
  std::optional<DataProtection> data_protection;
  std::vector<AccessRuleDraft> access_rules;
};

}  // namespace sluice::catalog
