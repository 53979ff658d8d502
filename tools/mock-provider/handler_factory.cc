#include "tools/mock-provider/handler_factory.h"

#include <Poco/Net/HTTPServerRequest.h>

#include "tools/mock-provider/admin_handler.h"
#include "tools/mock-provider/aws_metadata.h"
#include "tools/mock-provider/aws_metadata_handler.h"
#include "tools/mock-provider/mcp_handler.h"
#include "tools/mock-provider/provider_handler.h"
#include "tools/mock-provider/token_handler.h"

namespace sluice::mock {

Poco::Net::HTTPRequestHandler* HandlerFactory::createRequestHandler(const Poco::Net::HTTPServerRequest& request) {
  if (isAwsCredentialPath(request.getURI().substr(0, request.getURI().find('?')))) return new AwsMetadataHandler(context_);
  if (request.getURI().starts_with("/_mock/")) return new AdminHandler(context_);
  if (isMcpPath(request.getURI().substr(0, request.getURI().find('?')))) return new McpHandler(context_);
  const std::string& uri = request.getURI();
  if (auto endpoint = tokenEndpointOf(std::string_view(uri).substr(0, uri.find('?')))) {
    return new TokenHandler(context_, *endpoint);
  }
  return new ProviderHandler(context_);
}

}  // namespace sluice::mock
