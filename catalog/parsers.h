#pragma once
// One parser per catalog file. Each reads its file's text into its part of the Draft, reporting
// every local problem (syntax, shape, unknown keys, types, values that make no sense on their
// own). References to other files are recorded with their location and checked by the linker.

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "catalog/compiler.h"
#include "catalog/diagnostic_sink.h"
#include "catalog/draft.h"
#include "catalog/interpolate.h"

namespace sluice::catalog {

struct ParseContext {
  const Environment& env;  // for ${NAME} (under `variables`) and a credential's env:NAME
  const std::map<std::string, std::string>& secret_files;
  DiagnosticSink& sink;
  const VariablePolicy& variables;
};

void parseCredentials(const SourceText& source, const ParseContext& context, Draft& draft);
// An env:NAME / file:PATH reference read (warning and nullopt when the source is missing; `label`
// names the key in errors). Never puts the value in a message.
std::optional<std::string> resolveSecretRef(YamlReader& reader, const ParseContext& context,
                                            const Location& where, const std::string& credential_id,
                                            const std::string& ref, const std::string& label);
// A platform credential's `aws:` block (parse_aws.cc).
AwsCredential readAwsCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                const std::string& credential_id);
// A provider's `platform:` and `region:`, and the default endpoint url they give (parse_aws.cc).
void readPlatform(YamlReader& reader, const Entry* platform, const Entry* region, const std::string& owner,
                  Provider& provider);
std::string platformDefaultUrl(const Provider& provider);
// Google Cloud and Azure (parse_clouds.cc): a credential's `gcp:` and `azure:`, a provider's
// `project:`, an endpoint's platform rules and `api_version:`, Vertex's default url.
GcpCredential readGcpCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                const std::string& credential_id);
AzureCredential readAzureCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                    const std::string& credential_id);
void readProject(YamlReader& reader, const Entry* project, const Entry* platform, const std::string& owner,
                 Provider& provider);
void readEndpointPlatform(YamlReader& reader, const Entry& endpoint_entry, const Entry* api_version,
                          const std::string& what, const Provider& provider, Endpoint& endpoint);
std::string vertexDefaultUrl(const Provider& provider);
void parseProviders(const SourceText& source, const ParseContext& context, Draft& draft);
void parseModels(const SourceText& source, const ParseContext& context, Draft& draft);
void parseDeployments(const SourceText& source, const ParseContext& context, Draft& draft);
void parseGateway(const SourceText& source, const ParseContext& context, Draft& draft);
void parseAccessRules(const SourceText& source, const ParseContext& context, Draft& draft);

// gateway.limits (parse_limits.cc).
void readGatewayLimits(YamlReader& reader, const Entry& entry, GatewayLimits& limits);
// gateway.telemetry: trace_url (an http(s) URL with {trace_id}) and audit_logs.
void readTelemetry(YamlReader& reader, const Entry& entry, TelemetrySettings& telemetry);
// gateway.console: oidc (issuer, client_id, client_secret, scopes, member_claim, groups_claim,
// admin_groups, provision, display_name) and key_sign_in (parse_console.cc).
void readConsole(YamlReader& reader, const ParseContext& context, const Entry& entry, ConsoleSettings& console);
// gateway.quotas (parse_quotas.cc).
void readQuotas(YamlReader& reader, const Entry& entry, Quotas& quotas);
// gateway.webhooks, a window's alerts:, and every alert naming a declared webhook (parse_webhooks.cc).
void readWebhooks(YamlReader& reader, const ParseContext& context, const Entry& entry, std::vector<Webhook>& webhooks);
void readAlerts(YamlReader& reader, const Entry& entry, const std::string& owner, QuotaWindow& window);
void checkAlertTargets(YamlReader& reader, const Quotas& quotas, const std::vector<Webhook>& webhooks);

// The body under a file's single top-level key (`credentials:`, `models:`, ...). Reports a syntax
// error, an empty file, a missing top-level key and any other top-level key; nullopt when the
// file cannot be read further.
std::optional<Entry> readTopLevel(YamlReader& reader, std::string_view text,
                                  std::string_view key);

// Ids are what routes, access rules and other files refer to. Names (credential, provider,
// endpoint) are [A-Za-z0-9._-]+; model-like ids (models, routes) may also hold ':', '/', '@' and
// '+'. Reports "<kind> id 'x' ..." at the key and returns false when the id is not valid.
bool checkName(YamlReader& reader, const Located<std::string>& id, std::string_view kind);
bool checkModelId(YamlReader& reader, const Located<std::string>& id, std::string_view kind);

// How messages name a list item: by its id when it has one ("route 'x'"), else by its position
// ("route #3").
std::string ownerName(const YAML::Node& node, std::string_view kind, size_t index);

// One item of gateway.yaml's routes: list (catalog/parse_routes.cc).
RouteDraft readRoute(YamlReader& reader, const YAML::Node& node, const Location& at, size_t index);

}  // namespace sluice::catalog
