#pragma once
// The validated, immutable catalog: everything the gateway may dispatch to, as declared in
// services/ai/*.yaml and services/access-control/rules.yaml.
//
// A Catalog is only ever built by compileCatalog() (catalog/compiler.h) and is shared as
// std::shared_ptr<const Catalog>; nothing mutates it after compilation, so any number of threads
// may read one concurrently. Every cross-reference has been resolved at compile time: a lookup on
// an id that came from the catalog itself never returns nullptr.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/cidr.h"
#include "catalog/cloud_credentials.h"
#include "catalog/console_settings.h"
#include "catalog/telemetry_settings.h"

namespace sluice::protection {
class Detector;
}

namespace sluice::catalog {

struct ZoneRules;  // catalog/zone_rules.h

// BedrockConverse: Bedrock's Converse / ConverseStream API (platform: bedrock only; any model).
// Mcp: a Model Context Protocol server (Streamable HTTP), served at /mcp/{provider}; never a model
// deployment (docs/mcp.md).
enum class Wire { Anthropic, OpenAIChat, OpenAIResponses, Gemini, BedrockConverse, Mcp };
std::string_view toString(Wire wire);
std::optional<Wire> parseWire(std::string_view text);

// Client families decide which models GET /v1/models advertises.
enum class ClientFamily { Claude, OpenCode, Codex, OpenAI };
std::string_view toString(ClientFamily family);
std::optional<ClientFamily> parseClientFamily(std::string_view text);

enum class CredentialKind { Platform, Personal };
std::string_view toString(CredentialKind kind);

// What a model does, and so which /v1 endpoints serve it: chat models the three chat formats
// (/v1/messages, /v1/chat/completions, /v1/responses); every other kind its own OpenAI-style
// endpoint (/v1/embeddings, /v1/images/generations, /v1/audio/speech and /v1/audio/transcriptions,
// /v1/moderations, /v1/rerank). Models.yaml `kind:`, default chat.
enum class ModelKind { Chat, Embedding, Image, Audio, Moderation, Rerank };
std::string_view toString(ModelKind kind);
std::optional<ModelKind> parseModelKind(std::string_view text);

enum class Strategy { Ordered, Weighted, LeastBusy };
std::string_view toString(Strategy strategy);

// Implicit: the route every declared model gets (id = model id). Alias: a new id clients may ask
// for, resolving to one declared model. Scoped: applies only under `when: {scope: ...}`.
// Pinned: narrows the deployments of the models it names. Policy: strategy/requires/fallbacks only.
enum class RouteKind { Implicit, Alias, Scoped, Pinned, Policy };
std::string_view toString(RouteKind kind);

enum class QuotaMode { Warn, Enforce };
// Whose usage one counter of a window holds: one member, one project, one API key, everything
// (organisation), or one group's members together.
enum class QuotaScope { User, Project, ApiKey, Organisation, Group };
std::string_view toString(QuotaScope scope);
// How a window's spans are cut: rolling-free fixed spans of `seconds`, or calendar days, weeks
// (from Monday) and months in the window's time zone.
enum class QuotaPeriod { Seconds, Day, Week, Month };
std::string_view toString(QuotaPeriod period);
// What an override names: "project/research", "group/interns", "member/alice", "key/3f9a1c2e".
enum class QuotaSubjectKind { Project, Group, Member, Key };
std::string_view toString(QuotaSubjectKind kind);

enum class AccessDefault { Open, Closed };

// How far an endpoint is trusted with what clients send (gateway.data_protection). Local and
// TrustedRaw receive requests as the client sent them; TrustedMasked and Public receive them
// masked; Public is also where `block:` kinds are never sent.
enum class Trust { Local, TrustedRaw, TrustedMasked, Public };
std::string_view toString(Trust trust);
// TrustedMasked and Public.
bool masksRequests(Trust trust);

// The kinds of value `mask:` and `block:` may name, in the catalog's spelling (the same as
// server/protection's toString(Kind); the vault is its own key, not a kind to list).
inline constexpr std::string_view kMaskKinds[] = {"email",    "phone",       "payment_card", "iban",
                                                   "api_key",  "jwt",         "private_key",  "password",
                                                   "url_credentials", "ip_address"};
// The largest vault file read (the loader reads at most one byte more, so a larger one is refused).
inline constexpr size_t kMaxVaultFileBytes = 64u << 20;

// 1-based position in a source file, as printed in diagnostics.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Credential {
  std::string id;
  CredentialKind kind = CredentialKind::Platform;
  std::string description;
  std::string secret_ref;              // "env:NAME" or "file:PATH" after interpolation; empty for personal
  std::optional<std::string> secret;   // the platform secret; nullopt when it could not be read
  std::optional<AwsCredential> aws;    // `aws:` instead of `secret:` (Bedrock providers only)
  std::optional<GcpCredential> gcp;    // `gcp:` (Vertex providers only)
  std::optional<AzureCredential> azure;  // `azure:` (Azure providers only)
  Location where;

  // Personal credentials are bound per request from the member's stored key.
  bool configured() const {
    return kind == CredentialKind::Personal || secret.has_value() ||
           (aws && (aws->chain || (aws->access_key_id && aws->secret_access_key))) ||
           (gcp && (gcp->chain || gcp->service_account)) ||
           (azure && (azure->chain || azure->api_key || azure->client_secret));
  }
};

struct Governance {
  bool european = false;
  bool no_retain = false;
};

struct GovernanceOverride {
  std::optional<bool> european;
  std::optional<bool> no_retain;
};

struct RetryPolicy {
  int attempts = 1;     // extra tries on the same endpoint for 429/503 before failover
  int backoff_ms = 200;
};

struct BreakerPolicy {
  int failures = 5;     // consecutive failures that open the breaker
  int cooldown_s = 30;  // first cooldown; doubles up to 10 minutes
};

struct Timeouts {
  int connect_ms = 5000;
  int first_byte_ms = 60000;
  int idle_ms = 120000;
};

struct Endpoint {
  std::string key;          // "provider/endpoint"
  std::string provider_id;
  std::string id;
  Wire wire = Wire::Anthropic;
  // Base URL after interpolation, no trailing slash. Empty only for an endpoint with `presence:`:
  // the address the presence hub reports for its node is used then.
  std::string url;
  // An own machine: used only while the presence hub (Catalog::presence) reports this node
  // available (server/dispatch/target_check.h).
  std::optional<std::string> presence_node;
  bool skip_busy = false;                  // with presence: also skipped while the node is busy
  // With presence and no url: the address blocks a host the hub reports must fall in
  // (`presence_hosts:`); empty means the default, loopback (127.0.0.0/8, ::1). A host outside them
  // is never sent to (server/dispatch/target_check.h).
  std::vector<Cidr> presence_hosts;
  // The endpoint's own `credential:`, sent instead of its provider's. An own machine reached at
  // the address its hub reports is sent no credential at all unless it declares one here.
  std::optional<std::string> credential_id;
  std::string api_version;  // `api_version:` (platform: azure): the classic deployments API
  // `auth_header:` (wire: mcp): the header the credential's secret is sent in, as is; empty: the
  // secret goes as `Authorization: Bearer <secret>`.
  std::string auth_header;
  std::optional<int64_t> max_input_bytes;  // request bodies larger than this skip the endpoint
  std::optional<Trust> trust_written;  // the endpoint's own `trust:`
  // The effective tier: the endpoint's own, else its provider's, else Public. It matters only
  // when gateway.data_protection is declared (Catalog::protects()).
  Trust trust = Trust::Public;
  Location where;
};

// Where the provider's endpoints live: directly at the vendor, or on a cloud platform that frames,
// addresses and authenticates the same wire its own way.
enum class Platform { Direct, Bedrock, Vertex, Azure };

struct Provider {
  std::string id;
  std::string display_name;
  Platform platform = Platform::Direct;
  std::string region;  // `region:` of a cloud platform (Bedrock: the SigV4 signing region; Vertex: a location)
  std::string project;  // `project:` (platform: vertex): the Google Cloud project id
  std::string url;      // the provider's `url:`: its endpoints' base unless they give their own
  std::string credential_id;
  std::vector<std::pair<std::string, std::string>> headers;
  // Request headers a caller may send that are passed on to this provider (lower case), e.g.
  // tracing headers; auth and framing headers are refused at load.
  std::vector<std::string> forward_headers;
  std::string user_agent;
  Governance governance;
  RetryPolicy retry;
  BreakerPolicy breaker;
  Timeouts timeouts;
  std::optional<Trust> trust;  // `trust:` as written; endpoints inherit it
  std::vector<Endpoint> endpoints;
  Location where;
};

// Prices are integer microdollars per million tokens: USD 2.00 per million is 2'000'000.
struct LongContextPricing {
  int64_t above_input_tokens = 0;
  int64_t input_per_million = 0;
  int64_t output_per_million = 0;
  std::optional<int64_t> cache_read_per_million;
  std::optional<int64_t> cache_write_per_million;
};

// A model without `pricing:` is free (all zero); cache prices the catalog omits equal the input
// price. A deployment's `pricing:` is already merged over its model's.
struct Pricing {
  int64_t input_per_million = 0;
  int64_t output_per_million = 0;
  int64_t cache_read_per_million = 0;
  int64_t cache_write_per_million = 0;
  std::optional<LongContextPricing> long_context;
  // Per-unit prices, in integer microdollars per unit, for what is not counted in tokens (0 = not
  // charged): an image generated, a thousand characters spoken, a minute transcribed, a request.
  int64_t per_image = 0;
  int64_t per_1k_characters = 0;
  int64_t per_minute = 0;
  int64_t per_request = 0;
};

struct Limits {
  std::optional<int64_t> context_window;  // absent: never refused for size
  std::optional<int64_t> max_output;
};

struct Model {
  std::string id;
  std::string display_name;
  std::string upstream_model;
  ModelKind kind = ModelKind::Chat;
  std::vector<ClientFamily> clients;  // empty: served, never advertised
  std::vector<std::string> capabilities;
  Limits limits;
  Pricing pricing;
  GovernanceOverride governance;
  std::vector<std::string> retired;
  Location where;

  bool hasCapability(std::string_view capability) const;
  bool advertisedTo(ClientFamily family) const;
};

// One entry of a model's failover chain, with per-deployment overrides already merged.
struct Deployment {
  std::string model_id;
  std::string endpoint_key;
  std::string provider_id;
  std::string endpoint_id;
  std::string upstream_model;
  Pricing pricing;
  Location where;
};

struct RouteDeployment {
  std::string endpoint_key;
  int weight = 1;
};

struct Requirements {
  bool european = false;
  bool no_retain = false;
  bool any() const { return european || no_retain; }
};

struct Route {
  std::string id;
  std::string label;                          // default: the id; implicit: the model's display_name
  RouteKind kind = RouteKind::Implicit;
  std::vector<std::string> models;            // declared model ids served (alias: exactly one)
  std::optional<std::string> scope_project;   // when: {scope: {project: ...}}
  std::vector<RouteDeployment> deployments;   // empty: each model's own deployments, in order
  Strategy strategy = Strategy::Ordered;
  // Conversation affinity: later turns of one conversation go to the deployment that served the
  // first (server/dispatch/affinity.h). Default: on for weighted and least_busy, off for ordered
  // (which always leads with the same deployment anyway).
  bool affinity = false;
  int64_t affinity_ttl_seconds = 0;  // 0: a pin lasts while the route's deployments stay
  std::vector<std::string> context_fallbacks;
  Requirements requirements;
  Location where;
};

// The limits of one window for one subject. None set: unlimited.
struct QuotaLimits {
  std::optional<int64_t> max_requests;
  std::optional<int64_t> max_input_tokens;
  std::optional<int64_t> max_output_tokens;
  std::optional<int64_t> max_cost_microdollars;
  std::optional<int64_t> max_tool_calls;  // a `unit: tool_calls` window's only limit
  bool unlimited() const {
    return !max_requests && !max_input_tokens && !max_output_tokens && !max_cost_microdollars && !max_tool_calls;
  }
};

// What a quota window counts: model requests (with their tokens and cost), or MCP tool calls
// (docs/mcp.md). A window counts one or the other.
enum class QuotaUnit { Requests, ToolCalls };

// A window's limit for one subject instead of the window's own (`overrides:`); `unlimited` is a
// QuotaLimits with nothing set.
struct QuotaOverride {
  QuotaSubjectKind kind = QuotaSubjectKind::Project;
  std::string name;
  QuotaLimits limits;
  Location where;
};

// A window's `alerts:` entry: tell the webhook `webhook` (a gateway.webhooks id) once per subject
// and period when `percent` % of the limit that applies to the subject (its override, else the
// window's default) is spent. server/alerts/ sends it; PostgreSQL decides which replica.
struct QuotaAlert {
  int percent = 80;  // 1..100
  std::string webhook;
  Location where;
};

// A window's own QuotaLimits are its default: what a subject no override names gets.
struct QuotaWindow : QuotaLimits {
  std::string id;
  QuotaScope per = QuotaScope::User;
  int64_t seconds = 0;                         // QuotaPeriod::Seconds only
  QuotaPeriod period = QuotaPeriod::Seconds;
  std::string timezone = "UTC";                // calendar periods: an IANA name
  // The zone's rules (config::attachTimeZones); null for UTC, where offsets are always 0.
  std::shared_ptr<const ZoneRules> zone;
  std::optional<QuotaMode> mode;               // the window's own; default: Quotas::mode
  QuotaUnit unit = QuotaUnit::Requests;        // `unit:`; tool_calls when max_tool_calls is given
  std::vector<QuotaOverride> overrides;        // in the file's order
  std::vector<QuotaAlert> alerts;              // ascending percent, no repeats
  Location where;
  Location timezone_at;
};

// How a webhook's body is written: Slack's and Teams' incoming-webhook shapes, or Sluice's own
// JSON signed with HMAC-SHA256 of `secret` (docs/identity.md "Budget alerts").
enum class WebhookFormat { Slack, Teams, Json };
std::string_view toString(WebhookFormat format);

// gateway.webhooks: where budget alerts go. The URL's query string and the secret are never shown.
struct Webhook {
  std::string id;
  std::string url;         // http:// or https://
  WebhookFormat format = WebhookFormat::Json;
  std::string secret_ref;  // "env:NAME" / "file:PATH" as written; "" when none
  std::string secret;      // resolved: secret, never shown
  Location where;
};

struct Quotas {
  QuotaMode mode = QuotaMode::Warn;
  std::vector<QuotaWindow> windows;
};

// How callers prove who they are (gateway.identity): an API key, a verified TLS client
// certificate mapped to a member, or either of the two.
enum class IdentityMode { Key, Certificate, Either };
std::string_view toString(IdentityMode mode);

// How a trusted proxy's header names the member: by the member's name, or by an e-mail address
// mapped to the member (`sluicectl users add NAME --cert-subject email:ADDRESS`).
enum class ProxyMatch { Name, Email };
std::string_view toString(ProxyMatch match);

// gateway.trusted_proxies: an identity-aware proxy in front of the gateway names the member in
// `header`, which counts only on connections whose peer address is in one of `from`.
struct TrustedProxies {
  std::string header;  // lower case
  std::vector<Cidr> from;
  ProxyMatch match = ProxyMatch::Name;
  Location where;

  // Whether a connection from `peer` may name its member in `header`.
  bool trusts(const IpAddress& peer) const;
};

struct IdentitySettings {
  IdentityMode mode = IdentityMode::Key;
  std::optional<TrustedProxies> trusted_proxies;
  Location where;  // of identity:, when declared
};

// gateway.limits: what one request may cost upstream, whatever its model name expands to (a
// chain of 40 targets, each with its retry budget).
struct GatewayLimits {
  int max_attempts = 10;     // upstream calls per request, retries included
  int max_retry_ms = 10000;  // time one request may spend waiting to retry (backoff, Retry-After)
};

// gateway.presence: the hub that says which own machines (endpoints with `presence:`) are up.
struct PresenceHub {
  std::string url;        // base URL; the gateway polls GET <url>/presence
  int poll_ms = 1500;
  int stale_ms = 5000;    // a last successful poll older than this makes every node stale
  Location where;
};

struct AccessBands {
  std::vector<std::string> person;
  std::vector<std::string> project;
  std::vector<std::string> group;
  std::vector<std::string> role;
};

struct AccessRule {
  std::string entity;  // "gateway_route/<id>" or "gateway_route/*"
  AccessDefault default_access = AccessDefault::Open;
  std::string why;
  AccessBands allow;
  AccessBands deny;
  Location where;
};

// gateway.data_protection: what is masked in requests sent to a masked tier, and restored in the
// answers.
struct DataProtection {
  std::vector<std::string> mask;   // kinds of kMaskKinds, in file order, without repeats
  std::vector<std::string> block;  // kinds never sent to a Public endpoint (each also in `mask`)
  bool restore = true;             // put the originals back into the answers
  std::string vault_ref;           // "file:PATH" as written (after interpolation); "" = no vault
  std::string vault_text;          // the vault file's content: secret, never shown
  Location where;                  // the data_protection key
  Location vault_at;               // the vault value (where a refused vault is reported)
  // The detectors compiled once for this catalog, shared read-only by every request. Set by the
  // loader (server/config/catalog_loader.h), never by the pure compiler; null when the catalog
  // was compiled without it, and masking then fails closed.
  std::shared_ptr<const protection::Detector> detector;
};

// What a requested model id resolves to, before any route is chosen.
struct Resolution {
  enum class Kind { Model, Alias, Retired, Unknown } kind = Kind::Unknown;
  std::string model_id;     // Model/Alias: the declared model; Retired: the model that replaces it
  std::string alias_route;  // Alias: the route id
};

class Catalog {
 public:
  std::vector<Credential> credentials;
  std::vector<Provider> providers;
  std::vector<Model> models;                                     // file order
  std::map<std::string, std::vector<Deployment>, std::less<>> deployments;  // by model id, failover order
  std::vector<Route> routes;  // explicit routes in file order, then one implicit route per model
  std::string default_model;
  // gateway.ad_hoc_chains: a requested model "a|b|c" (server/dispatch/chain.h) is served; false
  // refuses it as an unknown model.
  bool ad_hoc_chains = true;
  std::optional<PresenceHub> presence;
  GatewayLimits limits;
  TelemetrySettings telemetry;
  ConsoleSettings console;
  Quotas quotas;
  std::vector<Webhook> webhooks;  // gateway.webhooks, in file order
  IdentitySettings identity;
  std::vector<AccessRule> access_rules;
  // Declared: requests to masked tiers are masked. Absent: nothing is masked, `trust:` is ignored.
  std::optional<DataProtection> data_protection;
  std::string version;  // short content hash of the source texts

  const Credential* credential(std::string_view id) const;
  // The credential sent to `endpoint`: its own `credential:`, else its provider's; null if none.
  const Credential* credentialOf(const Endpoint& endpoint) const;
  const Provider* provider(std::string_view id) const;
  const Endpoint* endpoint(std::string_view key) const;
  const Model* model(std::string_view id) const;
  const Route* route(std::string_view id) const;
  const Webhook* webhook(std::string_view id) const;
  const std::vector<Deployment>& deploymentsOf(std::string_view model_id) const;  // empty if none
  const Deployment* deployment(std::string_view model_id, std::string_view endpoint_key) const;

  // Strips Claude Code's "[1m]" marker, then looks the id up among models, alias routes and
  // retired ids; an id not found so that starts with "sluice/" is looked up again without that
  // prefix (clients that prepend a provider name). Pure; never throws.
  Resolution resolve(std::string_view requested) const;

  // resolve() without the "[1m]" marker and "sluice/" prefix handling: `id` exactly.
  Resolution resolveExact(std::string_view id) const;

  // The effective governance of a deployment: the provider's flags, overridden by the model's.
  Governance governanceOf(const Deployment& deployment) const;

  // True when gateway.data_protection is declared and `endpoint`'s tier receives requests masked.
  bool masks(const Endpoint& endpoint) const { return data_protection && masksRequests(endpoint.trust); }
};

// Removes a trailing "[1m]" (any case) that Claude Code appends to 1M-context models.
std::string_view stripContextMarker(std::string_view requested);

// The prefix some clients put before every model name ("sluice/claude-sonnet-5-5").
inline constexpr std::string_view kSluicePrefix = "sluice/";

}  // namespace sluice::catalog
