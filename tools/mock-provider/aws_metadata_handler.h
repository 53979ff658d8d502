#pragma once
// The Poco handler around aws_metadata.h: STS, the container endpoint, IMDSv2, /_mock/aws.

#include <Poco/Net/HTTPRequestHandler.h>

#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

class AwsMetadataHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit AwsMetadataHandler(ServerContext& context) : context_(context) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerContext& context_;
};

}  // namespace sluice::mock
