#pragma once
// Sending a provider's answer to the client: byte for byte when both speak the same wire (usage is
// read on the way), or translated through the neutral IR. Streams are flushed event by event, and
// the upstream connection is closed the moment the client is gone.

#include <string>

#include <Poco/Net/HTTPServerResponse.h>

#include "catalog/catalog.h"
#include "server/upstream/client.h"
#include "server/wire/codec.h"
#include "server/wire/usage.h"

namespace sluice::http {

struct RelayResult {
  int status = 0;               // the status the client was sent
  bool client_gone = false;     // the client hung up mid-answer (upstream aborted)
  bool upstream_broke = false;  // the provider's stream ended early or failed in-stream
  wire::Usage usage;
  bool usage_reported = false;
  std::string error_key;        // set when the answer was an error
  std::string error_message;
};

// Same wire: the body goes to the client unchanged.
RelayResult relayPassthrough(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                             catalog::Wire wire, const wire::ResponseContext& context);

// Different wires: provider_wire is decoded into the IR and encoded as client_wire.
RelayResult relayTranslated(upstream::Response& answer, Poco::Net::HTTPServerResponse& response,
                            catalog::Wire provider_wire, catalog::Wire client_wire, const wire::ResponseContext& context);

}  // namespace sluice::http
