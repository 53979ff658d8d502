#include "catalog/linker.h"

#include <algorithm>

#include "catalog/suggest.h"

namespace sluice::catalog {

std::string joinIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) {
    if (!out.empty()) out += ", ";
    out += id;
  }
  return out;
}

std::string describe(const Location& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

std::string undeclaredModelHint(const LinkState& state, std::string_view id) {
  if (auto it = state.retired.find(id); it != state.retired.end()) {
    return "; '" + std::string(id) + "' is retired, replaced by '" + it->second.first + "'";
  }
  if (auto it = state.aliases.find(id); it != state.aliases.end()) {
    return "; '" + std::string(id) + "' is an alias route of model '" + it->second + "'";
  }
  std::vector<std::string> declared;
  for (const Model& model : state.catalog.models) declared.push_back(model.id);
  return didYouMean(nearestNames(id, declared));
}

const Endpoint* resolveEndpoint(LinkState& state, const Located<std::string>& key,
                                std::string_view context) {
  if (!state.checkEndpoints()) return nullptr;
  const std::string& text = key.value;
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    state.sink.error(key.where, std::string(context) + ": endpoint '" + text +
                                    "' must be written 'provider/endpoint'");
    return nullptr;
  }
  std::string provider_id = text.substr(0, slash);
  const Provider* provider = state.catalog.provider(provider_id);
  if (provider == nullptr) {
    std::vector<std::string> known;
    for (const Provider& p : state.catalog.providers) known.push_back(p.id);
    state.sink.error(key.where, std::string(context) + ": unknown provider '" + provider_id +
                                    "' in endpoint '" + text + "'; declared providers: " +
                                    joinIds(known));
    return nullptr;
  }
  const Endpoint* endpoint = state.catalog.endpoint(text);
  if (endpoint == nullptr) {
    std::vector<std::string> known;
    for (const Endpoint& e : provider->endpoints) known.push_back(e.id);
    state.sink.error(key.where, std::string(context) + ": provider '" + provider_id +
                                    "' has no endpoint '" + text.substr(slash + 1) +
                                    "'; its endpoints: " + joinIds(known));
  }
  return endpoint;
}

// AWS keys sign requests to AWS alone: a credential with `aws:` serves platform: bedrock only.
static void checkAwsCredentials(LinkState& state, const ProviderDraft& draft, const Provider& provider) {
  if (provider.platform == Platform::Bedrock) return;
  auto check = [&](const std::string& id, const Location& where) {
    const Credential* credential = state.catalog.credential(id);
    if (credential != nullptr && credential->aws) {
      state.sink.error(where, "provider '" + provider.id + "' uses credential '" + id +
                                  "', whose aws: keys sign requests to AWS; only a provider with platform: bedrock "
                                  "may use it");
    }
  };
  check(provider.credential_id, draft.credential_at);
  for (const Endpoint& endpoint : provider.endpoints) {
    if (endpoint.credential_id) check(*endpoint.credential_id, endpoint.where);
  }
}

void linkProviders(LinkState& state) {
  state.catalog.credentials = state.draft.credentials;
  std::vector<std::string> known;
  for (const Credential& c : state.catalog.credentials) known.push_back(c.id);
  for (const ProviderDraft& draft : state.draft.providers) {
    Provider provider = draft.provider;
    for (Endpoint& endpoint : provider.endpoints) {
      endpoint.trust = endpoint.trust_written.value_or(provider.trust.value_or(Trust::Public));
    }
    if (state.draft.credentials_loaded && !provider.credential_id.empty() &&
        state.catalog.credential(provider.credential_id) == nullptr) {
      state.sink.error(draft.credential_at, "provider '" + provider.id +
                                                "' references unknown credential '" +
                                                provider.credential_id +
                                                "'; declared credentials: " + joinIds(known));
    }
    for (const Endpoint& endpoint : provider.endpoints) {
      if (state.draft.credentials_loaded && endpoint.credential_id &&
          state.catalog.credential(*endpoint.credential_id) == nullptr) {
        state.sink.error(endpoint.where, "endpoint '" + endpoint.key + "' references unknown credential '" +
                                             *endpoint.credential_id + "'; declared credentials: " + joinIds(known));
      }
    }
    checkAwsCredentials(state, draft, provider);
    checkCloudCredentials(state, draft, provider);
    state.catalog.providers.push_back(std::move(provider));
  }
}

void linkModels(LinkState& state) {
  for (const ModelDraft& draft : state.draft.models) state.catalog.models.push_back(draft.model);
  // Retired ids are refused with a pointer to their replacement, so each must name exactly one
  // replacement and never shadow something servable. Route ids are checked in linkRoutes().
  for (const ModelDraft& draft : state.draft.models) {
    const Model& model = draft.model;
    for (size_t i = 0; i < model.retired.size(); ++i) {
      const std::string& id = model.retired[i];
      const Location& where = draft.retired_at[i];
      if (const Model* other = state.catalog.model(id)) {
        state.sink.error(where, "retired id '" + id + "' of model '" + model.id +
                                    "' collides with model '" + id + "' declared at " +
                                    describe(other->where));
        continue;
      }
      auto [it, inserted] = state.retired.emplace(id, std::make_pair(model.id, where));
      if (!inserted) {
        state.sink.error(where, "retired id '" + id + "' of model '" + model.id +
                                    "' is already retired by model '" + it->second.first +
                                    "' at " + describe(it->second.second));
      }
    }
  }
}

Catalog link(const Draft& draft, DiagnosticSink& sink) {
  LinkState state{draft, sink, {}, {}, {}};
  linkProviders(state);
  linkModels(state);
  linkDeployments(state);
  linkRoutes(state);
  linkAccessRules(state);
  state.catalog.data_protection = draft.data_protection;
  return std::move(state.catalog);
}

}  // namespace sluice::catalog
