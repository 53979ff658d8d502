#pragma once
// The clouds' token endpoints on the mock (cloud_identity.h checks what they receive):
//   POST /token                                   Google's OAuth token endpoint (a key file's token_uri)
//   GET  /computeMetadata/v1/instance/service-accounts/default/token
//                                                 the GCE metadata server (Metadata-Flavor: Google)
//   POST /{tenant}/oauth2/v2.0/token              Microsoft Entra ID (AZURE_AUTHORITY_HOST)
//   GET  /metadata/identity/oauth2/token          Azure's managed identity endpoint (Metadata: true)
// Each issues an access token valid for --token-lifetime seconds. They are counted in /_mock/stats
// and kept in /_mock/requests like model calls, with wire "token".

#include <optional>
#include <string_view>

#include <Poco/Net/HTTPRequestHandler.h>

#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

enum class TokenEndpoint { Google, GoogleMetadata, Entra, AzureManagedIdentity };

// Which token endpoint `path` (no query) is, if any.
std::optional<TokenEndpoint> tokenEndpointOf(std::string_view path);

class TokenHandler : public Poco::Net::HTTPRequestHandler {
 public:
  TokenHandler(ServerContext& context, TokenEndpoint endpoint) : context_(context), endpoint_(endpoint) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerContext& context_;
  TokenEndpoint endpoint_;
};

}  // namespace sluice::mock
