#include "tools/mock-provider/handler_factory.h"

#include <Poco/Net/HTTPServerRequest.h>

#include "tools/mock-provider/admin_handler.h"
#include "tools/mock-provider/aws_metadata.h"
#include "tools/mock-provider/aws_metadata_handler.h"
#include "tools/mock-provider/provider_handler.h"

namespace sluice::mock {

Poco::Net::HTTPRequestHandler* HandlerFactory::createRequestHandler(const Poco::Net::HTTPServerRequest& request) {
  if (isAwsCredentialPath(request.getURI().substr(0, request.getURI().find('?')))) return new AwsMetadataHandler(context_);
  if (request.getURI().starts_with("/_mock/")) return new AdminHandler(context_);
  return new ProviderHandler(context_);
}

}  // namespace sluice::mock
