#pragma once
// How a call to a Vertex or Azure endpoint is authorised, for a catalog credential with `gcp:` or
// `azure:` (or an Azure provider's plain `secret:`, an api-key): the header to send, with its
// OAuth token fetched, cached and refreshed through one TokenCache (access_token.h). Token
// endpoints are reached through the gateway's upstream transport. Thread-safe; shared by every
// fiber through the Gateway.
//
// Google: a service-account key file (a JWT bearer grant at its token_uri), or chain: default:
// GOOGLE_APPLICATION_CREDENTIALS (a service-account file), then the metadata server
// (GCE_METADATA_HOST, default metadata.google.internal).
// Azure: api-key; Entra ID client credentials at AZURE_AUTHORITY_HOST (default
// https://login.microsoftonline.com)/{tenant}/oauth2/v2.0/token; chain: default: workload identity
// (AZURE_FEDERATED_TOKEN_FILE with AZURE_TENANT_ID and AZURE_CLIENT_ID), then managed identity
// (IMDS; AZURE_IMDS_HOST overrides its address for tests).

#include <expected>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "server/cloud/access_token.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

using Header = std::pair<std::string, std::string>;

inline constexpr std::string_view kCognitiveServicesScope = "https://cognitiveservices.azure.com/.default";

class CloudAuth {
 public:
  using Environment = std::function<std::string(const char*)>;  // "" when unset
  using ReadFile = std::function<std::optional<std::string>(const std::string&)>;

  CloudAuth();  // the process's environment and files

  // The header authorising a call with `credential` (gcp: or azure:): ("Authorization", "Bearer
  // …") or ("api-key", …). Fetches a token through `transport` when none is fresh; the error says
  // why none can be had (never a secret).
  std::expected<Header, std::string> authorize(const catalog::Credential& credential, upstream::Transport& transport);

  // The cloud answered 401 to a call `credential` authorised with `used`: a cached token in it is
  // forgotten (an api-key is left alone). True when there was a token to forget, so a new one may
  // be asked for.
  bool refused(const catalog::Credential& credential, const Header& used);

  // Each gcp:/azure: credential of `catalog`: usable now (a key, or a token in hand), or why not
  // (for /readyz and the console). A token credential not yet used is "not fetched yet".
  struct Standing {
    std::string id;
    bool usable = false;
    std::string detail;
  };
  std::vector<Standing> standing(const catalog::Catalog& catalog) const;

  // For tests: where the environment and files are read.
  void setEnvironment(Environment environment, ReadFile read_file) {
    environment_ = std::move(environment);
    read_file_ = std::move(read_file);
  }
  TokenCache& tokens() { return tokens_; }

 private:
  std::expected<AccessToken, std::string> fetchGoogle(const catalog::GcpCredential& gcp, upstream::Transport& transport);
  std::expected<AccessToken, std::string> fetchAzure(const catalog::AzureCredential& azure,
                                                     upstream::Transport& transport);
  std::string cacheKey(const catalog::Credential& credential) const;

  Environment environment_;
  ReadFile read_file_;
  TokenCache tokens_;
};

}  // namespace sluice::cloud
