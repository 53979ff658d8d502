#include "catalog/catalog.h"

#include <algorithm>
#include <cctype>

namespace sluice::catalog {

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::ranges::equal(a, b, [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

template <typename T>
const T* findById(const std::vector<T>& items, std::string_view id) {
  auto it = std::ranges::find_if(items, [&](const T& item) { return item.id == id; });
  return it == items.end() ? nullptr : &*it;
}

}  // namespace

std::string_view toString(Wire wire) {
  switch (wire) {
    case Wire::Anthropic: return "anthropic";
    case Wire::OpenAIChat: return "openai-chat";
    case Wire::OpenAIResponses: return "openai-responses";
    case Wire::Gemini: return "gemini";
    case Wire::BedrockConverse: return "bedrock-converse";
    case Wire::Mcp: return "mcp";
  }
  return "unknown";
}

std::optional<Wire> parseWire(std::string_view text) {
  for (Wire wire : {Wire::Anthropic, Wire::OpenAIChat, Wire::OpenAIResponses, Wire::Gemini, Wire::BedrockConverse,
                    Wire::Mcp}) {
    if (toString(wire) == text) return wire;
  }
  return std::nullopt;
}

std::string_view toString(Trust trust) {
  switch (trust) {
    case Trust::Local: return "local";
    case Trust::TrustedRaw: return "trusted_raw";
    case Trust::TrustedMasked: return "trusted_masked";
    case Trust::Public: return "public";
  }
  return "?";
}

std::string_view toString(ModelKind kind) {
  switch (kind) {
    case ModelKind::Chat: return "chat";
    case ModelKind::Embedding: return "embedding";
    case ModelKind::Image: return "image";
    case ModelKind::Audio: return "audio";
    case ModelKind::Moderation: return "moderation";
    case ModelKind::Rerank: return "rerank";
  }
  return "unknown";
}

bool masksRequests(Trust trust) { return trust == Trust::TrustedMasked || trust == Trust::Public; }

std::optional<ModelKind> parseModelKind(std::string_view text) {
  for (ModelKind kind : {ModelKind::Chat, ModelKind::Embedding, ModelKind::Image, ModelKind::Audio,
                         ModelKind::Moderation, ModelKind::Rerank}) {
    if (toString(kind) == text) return kind;
  }
  return std::nullopt;
}

std::string_view toString(ClientFamily family) {
  switch (family) {
    case ClientFamily::Claude: return "claude";
    case ClientFamily::OpenCode: return "opencode";
    case ClientFamily::Codex: return "codex";
    case ClientFamily::OpenAI: return "openai";
  }
  return "unknown";
}

std::optional<ClientFamily> parseClientFamily(std::string_view text) {
  for (ClientFamily family :
       {ClientFamily::Claude, ClientFamily::OpenCode, ClientFamily::Codex, ClientFamily::OpenAI}) {
    if (toString(family) == text) return family;
  }
  return std::nullopt;
}

std::string_view toString(CredentialKind kind) {
  switch (kind) {
    case CredentialKind::Platform: return "platform";
    case CredentialKind::Personal: return "personal";
  }
  return "unknown";
}

std::string_view toString(Strategy strategy) {
  switch (strategy) {
    case Strategy::Ordered: return "ordered";
    case Strategy::Weighted: return "weighted";
    case Strategy::LeastBusy: return "least_busy";
  }
  return "unknown";
}

std::string_view toString(RouteKind kind) {
  switch (kind) {
    case RouteKind::Implicit: return "implicit";
    case RouteKind::Alias: return "alias";
    case RouteKind::Scoped: return "scoped";
    case RouteKind::Pinned: return "pinned";
    case RouteKind::Policy: return "policy";
  }
  return "unknown";
}

std::string_view toString(QuotaScope scope) {
  switch (scope) {
    case QuotaScope::User: return "user";
    case QuotaScope::Project: return "project";
    case QuotaScope::ApiKey: return "api_key";
    case QuotaScope::Organisation: return "organisation";
    case QuotaScope::Group: return "group";
  }
  return "unknown";
}

std::string_view toString(QuotaPeriod period) {
  switch (period) {
    case QuotaPeriod::Seconds: return "seconds";
    case QuotaPeriod::Day: return "day";
    case QuotaPeriod::Week: return "week";
    case QuotaPeriod::Month: return "month";
  }
  return "seconds";
}

std::string_view toString(WebhookFormat format) {
  switch (format) {
    case WebhookFormat::Slack: return "slack";
    case WebhookFormat::Teams: return "teams";
    case WebhookFormat::Json: return "json";
  }
  return "json";
}

std::string_view toString(QuotaSubjectKind kind) {
  switch (kind) {
    case QuotaSubjectKind::Project: return "project";
    case QuotaSubjectKind::Group: return "group";
    case QuotaSubjectKind::Member: return "member";
    case QuotaSubjectKind::Key: return "key";
  }
  return "project";
}

std::string_view toString(IdentityMode mode) {
  switch (mode) {
    case IdentityMode::Key: return "key";
    case IdentityMode::Certificate: return "certificate";
    case IdentityMode::Either: return "either";
  }
  return "key";
}

std::string_view toString(ProxyMatch match) { return match == ProxyMatch::Email ? "email" : "name"; }

bool TrustedProxies::trusts(const IpAddress& peer) const {
  return std::ranges::any_of(from, [&](const Cidr& block) { return block.contains(peer); });
}

bool Model::hasCapability(std::string_view capability) const {
  return std::ranges::find(capabilities, capability) != capabilities.end();
}

bool Model::advertisedTo(ClientFamily family) const {
  return std::ranges::find(clients, family) != clients.end();
}

const Credential* Catalog::credential(std::string_view id) const { return findById(credentials, id); }

const Credential* Catalog::credentialOf(const Endpoint& endpoint) const {
  if (endpoint.credential_id) return credential(*endpoint.credential_id);
  const Provider* owner = provider(endpoint.provider_id);
  return owner ? credential(owner->credential_id) : nullptr;
}

const Provider* Catalog::provider(std::string_view id) const { return findById(providers, id); }

const Endpoint* Catalog::endpoint(std::string_view key) const {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return nullptr;
  const Provider* owner = provider(key.substr(0, slash));
  if (owner == nullptr) return nullptr;
  return findById(owner->endpoints, key.substr(slash + 1));
}

const Model* Catalog::model(std::string_view id) const { return findById(models, id); }

const Route* Catalog::route(std::string_view id) const { return findById(routes, id); }

const Webhook* Catalog::webhook(std::string_view id) const { return findById(webhooks, id); }

const std::vector<Deployment>& Catalog::deploymentsOf(std::string_view model_id) const {
  static const std::vector<Deployment> kNone;
  auto it = deployments.find(model_id);
  return it == deployments.end() ? kNone : it->second;
}

const Deployment* Catalog::deployment(std::string_view model_id,
                                      std::string_view endpoint_key) const {
  const auto& chain = deploymentsOf(model_id);
  auto it = std::ranges::find_if(
      chain, [&](const Deployment& d) { return d.endpoint_key == endpoint_key; });
  return it == chain.end() ? nullptr : &*it;
}

Resolution Catalog::resolve(std::string_view requested) const {
  const std::string_view id = stripContextMarker(requested);
  Resolution found = resolveExact(id);
  if (found.kind == Resolution::Kind::Unknown && id.starts_with(kSluicePrefix)) {
    found = resolveExact(id.substr(kSluicePrefix.size()));
  }
  return found;
}

Resolution Catalog::resolveExact(std::string_view id) const {
  if (model(id) != nullptr) {
    return {Resolution::Kind::Model, std::string(id), {}};
  }
  for (const Route& r : routes) {
    if (r.kind == RouteKind::Alias && r.id == id && !r.models.empty()) {
      return {Resolution::Kind::Alias, r.models.front(), r.id};
    }
  }
  for (const Model& m : models) {
    if (std::ranges::find(m.retired, id) != m.retired.end()) {
      return {Resolution::Kind::Retired, m.id, {}};
    }
  }
  return {};
}

Governance Catalog::governanceOf(const Deployment& d) const {
  Governance result;
  if (const Provider* p = provider(d.provider_id)) result = p->governance;
  if (const Model* m = model(d.model_id)) {
    if (m->governance.european) result.european = *m->governance.european;
    if (m->governance.no_retain) result.no_retain = *m->governance.no_retain;
  }
  return result;
}

std::string_view stripContextMarker(std::string_view requested) {
  constexpr std::string_view kMarker = "[1m]";
  if (requested.size() >= kMarker.size() &&
      equalsIgnoreCase(requested.substr(requested.size() - kMarker.size()), kMarker)) {
    return requested.substr(0, requested.size() - kMarker.size());
  }
  return requested;
}

std::string traceLink(const TelemetrySettings& telemetry, std::string_view trace_id) {
  if (telemetry.trace_url.empty() || trace_id.size() != 32) return {};
  for (const char c : trace_id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
  }
  std::string link = telemetry.trace_url;
  constexpr std::string_view kMark = "{trace_id}";
  for (size_t at = link.find(kMark); at != std::string::npos; at = link.find(kMark, at + trace_id.size())) {
    link.replace(at, kMark.size(), trace_id);
  }
  return link;
}

}  // namespace sluice::catalog
