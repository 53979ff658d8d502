// Google Cloud and Azure in the catalog: a platform credential's `gcp:` and `azure:` blocks, a
// provider's `platform: vertex` (`project:`, `region:`) and `platform: azure`, an endpoint's
// `api_version:`, and which credentials each platform takes (docs/catalog.md, "Google Vertex AI",
// "Azure OpenAI and AI Foundry").
#include <algorithm>
#include <cctype>
#include <string>

#include "catalog/linker.h"
#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

bool allOf(std::string_view text, size_t max, bool (*ok)(unsigned char)) {
  return !text.empty() && text.size() <= max && std::ranges::all_of(text, ok);
}

// A project id (acme-ml) or a legacy domain-scoped one (example.com:acme): safe in a URL path.
bool validProject(std::string_view project) {
  return allOf(project, 63, [](unsigned char c) {
           return std::islower(c) || std::isdigit(c) || c == '-' || c == '.' || c == ':';
         }) && std::islower(static_cast<unsigned char>(project.front()));
}

// A tenant or client id: a GUID, or a tenant's domain name (acme.onmicrosoft.com).
bool validEntraId(std::string_view id) {
  return allOf(id, 128, [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.'; });
}

// "2024-10-21", "2025-04-01-preview".
bool validApiVersion(std::string_view version) {
  return allOf(version, 32, [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '-'; }) &&
         std::isdigit(static_cast<unsigned char>(version.front()));
}

std::optional<std::string> resolve(YamlReader& reader, const ParseContext& context, const Entry& e,
                                   const std::string& what, const std::string& credential_id, std::string& ref) {
  auto text = reader.string(e, e.key + " of " + what);
  if (!text) return std::nullopt;
  ref = *text;
  return resolveSecretRef(reader, context, e.value_at, credential_id, ref, e.key);
}

bool readChain(YamlReader& reader, const Entry& chain, const std::string& what) {
  return reader.choice<bool>(chain, "chain of " + what, {{"default", true}}).value_or(false);
}

}  // namespace

GcpCredential readGcpCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                const std::string& credential_id) {
  GcpCredential gcp;
  const std::string what = "gcp of credential '" + credential_id + "'";
  Fields fields = reader.fields(entry, what, {"service_account", "chain"});
  if (!fields.ok()) return gcp;
  const Entry* chain = fields.find("chain");
  const Entry* account = fields.find("service_account");
  if (chain != nullptr && account != nullptr) {
    reader.error(chain->key_at, what + " has chain: and service_account:; give one");
  } else if (chain != nullptr) {
    gcp.chain = readChain(reader, *chain, what);
  } else if (account != nullptr) {
    gcp.service_account = resolve(reader, context, *account, what, credential_id, gcp.service_account_ref);
  } else {
    reader.error(entry.key_at, what + " needs service_account: file:PATH (a service-account key file) or "
                                      "chain: default");
  }
  return gcp;
}

AzureCredential readAzureCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                    const std::string& credential_id) {
  AzureCredential azure;
  const std::string what = "azure of credential '" + credential_id + "'";
  Fields fields = reader.fields(entry, what, {"api_key", "tenant_id", "client_id", "client_secret", "chain"});
  if (!fields.ok()) return azure;
  const Entry* chain = fields.find("chain");
  const Entry* key = fields.find("api_key");
  const Entry* tenant = fields.find("tenant_id");
  const Entry* client = fields.find("client_id");
  const Entry* secret = fields.find("client_secret");
  const int ways = (chain != nullptr) + (key != nullptr) + (tenant || client || secret ? 1 : 0);
  if (ways != 1) {
    reader.error(entry.key_at, what + " needs exactly one of api_key:, tenant_id: with client_id: and "
                                      "client_secret:, or chain: default");
    return azure;
  }
  if (chain != nullptr) {
    azure.chain = readChain(reader, *chain, what);
    return azure;
  }
  if (key != nullptr) {
    azure.api_key = resolve(reader, context, *key, what, credential_id, azure.api_key_ref);
    return azure;
  }
  if (!tenant || !client || !secret) {
    reader.error(entry.key_at, what + " needs tenant_id:, client_id: and client_secret: together (Entra ID "
                                      "client credentials)");
    return azure;
  }
  for (const auto& [e, target] : {std::pair{tenant, &azure.tenant_id}, std::pair{client, &azure.client_id}}) {
    auto text = reader.string(*e, e->key + " of " + what);
    if (!text) return azure;
    if (!validEntraId(*text)) {
      reader.error(e->value_at, e->key + " of " + what + " must be a GUID or a domain name, got '" + *text + "'");
      return azure;
    }
    *target = *text;
  }
  azure.client_secret = resolve(reader, context, *secret, what, credential_id, azure.client_secret_ref);
  return azure;
}

void readProject(YamlReader& reader, const Entry* project, const Entry* platform, const std::string& owner,
                 Provider& provider) {
  if (project == nullptr) {
    if (provider.platform == Platform::Vertex && platform != nullptr) {
      reader.error(platform->key_at, owner + " with platform: vertex needs project: (the Google Cloud project id)");
    }
    return;
  }
  if (provider.platform != Platform::Vertex) {
    reader.error(project->key_at, "project of " + owner + " needs platform: vertex");
    return;
  }
  auto text = reader.string(*project, "project of " + owner);
  if (!text) return;
  if (!validProject(*text)) {
    reader.error(project->value_at, "project of " + owner + " must be a Google Cloud project id such as acme-ml, "
                                                           "got '" + *text + "'");
    return;
  }
  provider.project = *text;
}

void readEndpointPlatform(YamlReader& reader, const Entry& endpoint_entry, const Entry* api_version,
                          const std::string& what, const Provider& provider, Endpoint& endpoint) {
  if (provider.platform == Platform::Vertex && endpoint.wire != Wire::Anthropic && endpoint.wire != Wire::Gemini) {
    reader.error(endpoint_entry.key_at, what + " is on platform: vertex, which serves wire: anthropic (Claude, "
                                               "rawPredict) and wire: gemini only");
  }
  if (provider.platform == Platform::Azure && endpoint.wire == Wire::Gemini) {
    reader.error(endpoint_entry.key_at, what + " is on platform: azure, which serves wire: openai-chat, "
                                               "openai-responses and anthropic only");
  }
  if (api_version == nullptr) return;
  if (provider.platform != Platform::Azure || endpoint.wire == Wire::Anthropic || endpoint.wire == Wire::Gemini) {
    reader.error(api_version->key_at, "api_version of " + what + " needs platform: azure and wire: openai-chat or "
                                                                 "openai-responses (the classic deployments API)");
    return;
  }
  auto text = reader.string(*api_version, "api_version of " + what);
  if (!text) return;
  if (!validApiVersion(*text)) {
    reader.error(api_version->value_at, "api_version of " + what + " must be an Azure API version such as "
                                                                   "2024-10-21, got '" + *text + "'");
    return;
  }
  endpoint.api_version = *text;
}

std::string vertexDefaultUrl(const Provider& provider) {
  if (provider.region.empty()) return "";
  if (provider.region == "global") return "https://aiplatform.googleapis.com";
  return "https://" + provider.region + "-aiplatform.googleapis.com";
}

// Cloud keys go to their own cloud alone, and a Vertex provider needs Google credentials.
void checkCloudCredentials(LinkState& state, const ProviderDraft& draft, const Provider& provider) {
  auto check = [&](const std::string& id, const Location& where) {
    const Credential* credential = state.catalog.credential(id);
    if (credential == nullptr) return;
    const std::string uses = "provider '" + provider.id + "' uses credential '" + id + "'";
    if (credential->gcp && provider.platform != Platform::Vertex) {
      state.sink.error(where, uses + ", whose gcp: identity serves Google Cloud; only a provider with platform: "
                                     "vertex may use it");
    } else if (credential->azure && provider.platform != Platform::Azure) {
      state.sink.error(where, uses + ", whose azure: identity serves Azure; only a provider with platform: azure "
                                     "may use it");
    } else if (provider.platform == Platform::Vertex && !credential->gcp) {
      state.sink.error(where, uses + "; a provider with platform: vertex needs a platform credential with gcp: "
                                     "(service_account: or chain: default)");
    } else if (provider.platform == Platform::Azure && credential->aws) {
      state.sink.error(where, uses + "; a provider with platform: azure needs azure: or secret: (an api-key)");
    }
  };
  check(provider.credential_id, draft.credential_at);
  for (const Endpoint& endpoint : provider.endpoints) {
    if (endpoint.credential_id) check(*endpoint.credential_id, endpoint.where);
  }
}

}  // namespace sluice::catalog
