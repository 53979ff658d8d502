#pragma once
// Answers one provider request (any of the four wires) as scripted: validation, echo, errors,
// fixture replay, count-tokens and generated answers, streamed or not, with faults.

#include <Poco/Net/HTTPRequestHandler.h>

#include "tools/mock-provider/received_request.h"
#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

// The request as it arrived, its body read up to the mock's bound.
ReceivedRequest readRequest(Poco::Net::HTTPServerRequest& request);

class ProviderHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ProviderHandler(ServerContext& context) : context_(context) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerContext& context_;
};

}  // namespace sluice::mock
