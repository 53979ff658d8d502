#include "tools/mock-provider/token_handler.h"

#include <chrono>
#include <fstream>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "tools/mock-provider/cloud_identity.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/received_request.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;
constexpr std::size_t kMaxBodyBytes = 64 << 10;
constexpr std::string_view kEntraSuffix = "/oauth2/v2.0/token";

std::optional<std::string> readSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(kMaxBodyBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

struct Reply {
  int status = 200;
  std::string body;
};

Reply refused(const OAuthError& error) { return {error.status, oauthErrorBody(error)}; }

}  // namespace

std::optional<TokenEndpoint> tokenEndpointOf(std::string_view path) {
  if (path == "/token") return TokenEndpoint::Google;
  if (path == "/computeMetadata/v1/instance/service-accounts/default/token") return TokenEndpoint::GoogleMetadata;
  if (path == "/metadata/identity/oauth2/token") return TokenEndpoint::AzureManagedIdentity;
  if (path.size() > kEntraSuffix.size() + 1 && path.ends_with(kEntraSuffix) &&
      path.substr(1, path.size() - kEntraSuffix.size() - 1).find('/') == std::string_view::npos) {
    return TokenEndpoint::Entra;
  }
  return std::nullopt;
}

void TokenHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  ReceivedRequest received;
  received.method = request.getMethod();
  const std::string& uri = request.getURI();
  received.path = uri.substr(0, uri.find('?'));
  if (uri.find('?') != std::string::npos) received.query = uri.substr(uri.find('?') + 1);
  for (const auto& [name, value] : request) received.headers.emplace_back(name, value);
  char buffer[8192];
  while (request.stream() && received.body.size() < kMaxBodyBytes) {
    request.stream().read(buffer, sizeof buffer);
    received.body.append(buffer, static_cast<std::size_t>(request.stream().gcount()));
  }
  context_.stats().recordRequest(received, context_.nextSeq(), "token");

  const auto now = std::chrono::system_clock::now();
  const auto lifetime = context_.clouds().token_lifetime;
  const bool metadata = endpoint_ == TokenEndpoint::GoogleMetadata || endpoint_ == TokenEndpoint::AzureManagedIdentity;
  Reply reply;
  if (received.method != (metadata ? "GET" : "POST")) {
    reply = refused({405, "invalid_request", "method " + received.method + " not allowed"});
  } else if (endpoint_ == TokenEndpoint::Google) {
    const auto& account = context_.clouds().google;
    const auto& user = context_.clouds().google_user;
    const std::string url = "http://" + findHeader(received.headers, "host").value_or("") + received.path;
    const auto form = parseForm(received.body);
    const auto grant = form.find("grant_type");
    std::optional<OAuthError> error;
    if (grant != form.end() && grant->second == "refresh_token") {
      error = user ? checkRefreshGrant(form, *user)
                   : std::optional(OAuthError{401, "invalid_client", "The OAuth client was not found."});
    } else {
      error = account ? checkGoogleGrant(form, *account, url, now)
                      : std::optional(OAuthError{400, "invalid_grant", "Invalid grant: account not found"});
    }
    reply = error ? refused(*error)
                  : Reply{200, Json{{"access_token", context_.googleTokens().issue(lifetime, now)},
                                    {"expires_in", lifetime.count()},
                                    {"token_type", "Bearer"}}
                                   .dump()};
  } else if (endpoint_ == TokenEndpoint::GoogleMetadata) {
    if (findHeader(received.headers, "metadata-flavor") != "Google") {
      reply = {403, "Missing Metadata-Flavor:Google header."};
    } else {
      reply = {200, Json{{"access_token", context_.googleTokens().issue(lifetime, now)},
                         {"expires_in", lifetime.count()},
                         {"token_type", "Bearer"}}
                        .dump()};
    }
  } else if (endpoint_ == TokenEndpoint::Entra) {
    const std::string tenant = received.path.substr(1, received.path.size() - kEntraSuffix.size() - 1);
    auto error = checkEntraGrant(tenant, parseForm(received.body), context_.clouds().entra, readSmallFile);
    reply = error ? refused(*error)
                  : Reply{200, Json{{"token_type", "Bearer"},
                                    {"expires_in", lifetime.count()},
                                    {"ext_expires_in", lifetime.count()},
                                    {"access_token", context_.entraTokens().issue(lifetime, now)}}
                                   .dump()};
  } else if (findHeader(received.headers, "metadata") != "true") {
    reply = refused({400, "invalid_request", "Required metadata header not specified"});
  } else if (findQueryParam(received.query, "resource") != "https%3A%2F%2Fcognitiveservices.azure.com" ||
             findQueryParam(received.query, "api-version").value_or("").empty()) {
    reply = refused({400, "invalid_resource", "The api-version and the resource https://cognitiveservices.azure.com are required"});
  } else {
    const auto expires_on = std::chrono::duration_cast<std::chrono::seconds>((now + lifetime).time_since_epoch()).count();
    reply = {200, Json{{"access_token", context_.entraTokens().issue(lifetime, now)},
                       {"expires_in", std::to_string(lifetime.count())},
                       {"expires_on", std::to_string(expires_on)},
                       {"resource", "https://cognitiveservices.azure.com"},
                       {"token_type", "Bearer"}}
                      .dump()};
  }
  context_.stats().recordStatus(received.path, reply.status);
  context_.log("token " + received.method + " " + received.path + " -> " + std::to_string(reply.status));
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status), reasonPhrase(reply.status));
  response.setContentType(reply.status == 403 && metadata ? "text/plain" : "application/json");
  response.setContentLength(static_cast<std::streamsize>(reply.body.size()));
  response.sendBuffer(reply.body.data(), reply.body.size());
}

}  // namespace sluice::mock
