#include "server/cloud/cloud_auth.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "server/cloud/google_jwt.h"
#include "server/net/fiber.h"

namespace sluice::cloud {
namespace {

constexpr size_t kMaxCredentialFileBytes = 64u << 10;

std::optional<std::string> readSmallFile(const std::string& path) {
  return net::fiber::blocking([&]() -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(kMaxCredentialFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxCredentialFileBytes) return std::nullopt;
    return text;
  });
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// "https://login.microsoftonline.com" from AZURE_AUTHORITY_HOST's forms (with or without a
// scheme or a trailing slash).
std::string authorityHost(std::string host) {
  if (host.empty()) host = "https://login.microsoftonline.com";
  while (!host.empty() && host.back() == '/') host.pop_back();
  if (!host.starts_with("https://") && !host.starts_with("http://")) host = "https://" + host;
  return host;
}

std::string hostUrl(std::string host, std::string_view fallback) {
  if (host.empty()) host = fallback;
  while (!host.empty() && host.back() == '/') host.pop_back();
  if (!host.starts_with("http://") && !host.starts_with("https://")) host = "http://" + host;
  return host;
}

}  // namespace

CloudAuth::CloudAuth()
    : environment_([](const char* name) {
        const char* value = std::getenv(name);
        return value ? std::string(value) : std::string();
      }),
      read_file_(readSmallFile) {}

std::string CloudAuth::cacheKey(const catalog::Credential& credential) const {
  // A reloaded catalog that changes the identity gets a token of its own.
  std::string material = credential.gcp ? "gcp|" + credential.gcp->service_account.value_or("chain")
                                        : "azure|" + credential.azure->tenant_id + "|" + credential.azure->client_id +
                                              "|" + credential.azure->client_secret.value_or("chain");
  return credential.id + "|" + std::to_string(std::hash<std::string>{}(material));
}

std::expected<Header, std::string> CloudAuth::authorize(const catalog::Credential& credential,
                                                        upstream::Transport& transport) {
  if (credential.azure && credential.azure->api_key) return Header{"api-key", *credential.azure->api_key};
  if (!credential.gcp && !credential.azure) return std::unexpected("credential has no gcp: or azure: identity");
  auto token = tokens_.get(cacheKey(credential), [&]() {
    return credential.gcp ? fetchGoogle(*credential.gcp, transport) : fetchAzure(*credential.azure, transport);
  });
  if (!token) return std::unexpected(token.error());
  return Header{"Authorization", "Bearer " + *token};
}

bool CloudAuth::refused(const catalog::Credential& credential, const Header& used) {
  constexpr std::string_view kBearer = "Bearer ";
  if ((!credential.gcp && !credential.azure) || used.first != "Authorization" || !used.second.starts_with(kBearer)) {
    return false;
  }
  tokens_.forget(cacheKey(credential), used.second.substr(kBearer.size()));
  return true;
}

std::expected<AccessToken, std::string> CloudAuth::fetchGoogle(const catalog::GcpCredential& gcp,
                                                               upstream::Transport& transport) {
  std::optional<std::string> key_file = gcp.service_account;
  std::string source = "the service-account key file";
  if (!key_file) {
    const std::string path = environment_("GOOGLE_APPLICATION_CREDENTIALS");
    if (path.empty()) {
      // The metadata server of the VM, GKE node or Cloud Run service (workload identity on GKE).
      const std::string host = hostUrl(environment_("GCE_METADATA_HOST"), "metadata.google.internal");
      auto token = fetchToken(transport, host + "/computeMetadata/v1/instance/service-accounts/default/token", "",
                              {{"Metadata-Flavor", "Google"}});
      if (!token) return std::unexpected("Google metadata server: " + token.error());
      return token;
    }
    key_file = read_file_(path);
    source = "GOOGLE_APPLICATION_CREDENTIALS";
    if (!key_file) return std::unexpected("GOOGLE_APPLICATION_CREDENTIALS names a file that cannot be read");
  }
  auto file = parseGoogleCredentialsFile(*key_file);
  if (!file) return std::unexpected(source + ": " + file.error());
  if (file->authorized_user) {
    // A user's application default credentials: the refresh token exchanged for an access token.
    auto token = fetchToken(transport, file->authorized_user->token_uri, refreshTokenGrantForm(*file->authorized_user));
    if (!token) return std::unexpected("Google token endpoint: " + token.error());
    return token;
  }
  const ServiceAccount& account = *file->service_account;
  auto assertion = serviceAccountAssertion(account, std::chrono::system_clock::now());
  if (!assertion) return std::unexpected(source + ": " + assertion.error());
  auto token = fetchToken(transport, account.token_uri, jwtGrantForm(*assertion));
  if (!token) return std::unexpected("Google token endpoint: " + token.error());
  return token;
}

std::expected<AccessToken, std::string> CloudAuth::fetchAzure(const catalog::AzureCredential& azure,
                                                              upstream::Transport& transport) {
  const std::string scope = "&scope=" + formEncode(kCognitiveServicesScope);
  const auto tokenUrl = [&](const std::string& tenant) {
    return authorityHost(environment_("AZURE_AUTHORITY_HOST")) + "/" + formEncode(tenant) + "/oauth2/v2.0/token";
  };
  if (!azure.chain) {
    if (!azure.client_secret) return std::unexpected("the client secret could not be read");
    auto token = fetchToken(transport, tokenUrl(azure.tenant_id),
                            "grant_type=client_credentials&client_id=" + formEncode(azure.client_id) +
                                "&client_secret=" + formEncode(*azure.client_secret) + scope);
    if (!token) return std::unexpected("Entra ID: " + token.error());
    return token;
  }
  const std::string client_id = environment_("AZURE_CLIENT_ID");
  if (const std::string file = environment_("AZURE_FEDERATED_TOKEN_FILE"); !file.empty()) {
    // Workload identity: the projected service-account token, re-read at each fetch as it rotates.
    const std::string tenant = environment_("AZURE_TENANT_ID");
    if (tenant.empty() || client_id.empty()) {
      return std::unexpected("workload identity needs AZURE_TENANT_ID and AZURE_CLIENT_ID with AZURE_FEDERATED_TOKEN_FILE");
    }
    auto assertion = read_file_(file);
    if (!assertion || trimmed(*assertion).empty()) {
      return std::unexpected("AZURE_FEDERATED_TOKEN_FILE names a file that cannot be read");
    }
    auto token = fetchToken(transport, tokenUrl(tenant),
                            "grant_type=client_credentials&client_id=" + formEncode(client_id) +
                                "&client_assertion_type=" +
                                formEncode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer") +
                                "&client_assertion=" + formEncode(trimmed(*assertion)) + scope);
    if (!token) return std::unexpected("Entra ID (workload identity): " + token.error());
    return token;
  }
  // Managed identity, from the instance metadata service.
  std::string url = hostUrl(environment_("AZURE_IMDS_HOST"), "169.254.169.254") +
                    "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=" +
                    formEncode("https://cognitiveservices.azure.com");
  if (!client_id.empty()) url += "&client_id=" + formEncode(client_id);
  auto token = fetchToken(transport, url, "", {{"Metadata", "true"}});
  if (!token) return std::unexpected("Azure managed identity: " + token.error());
  return token;
}

std::vector<CloudAuth::Standing> CloudAuth::standing(const catalog::Catalog& catalog) const {
  std::vector<Standing> out;
  for (const catalog::Credential& credential : catalog.credentials) {
    if (!credential.gcp && !credential.azure) continue;
    Standing row{credential.id, false, ""};
    if (!credential.configured()) {
      row.detail = "unconfigured: its secret could not be read at load";
    } else if (credential.azure && credential.azure->api_key) {
      row.usable = true;
    } else {
      const auto standing = tokens_.standing(cacheKey(credential));
      row.usable = standing.value_or(false);
      row.detail = !standing ? standing.error() : row.usable ? "" : "no token fetched yet (fetched on first use)";
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace sluice::cloud
