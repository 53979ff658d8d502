// The inference endpoints (/v1/messages, /v1/chat/completions, /v1/responses): one Exchange per
// request (exchange.h) takes it through the pipeline.

#include "server/http/exchange.h"
#include "server/http/handlers.h"

namespace sluice::http {

void InferenceHandler::handle(Request& request, ServerResponse& response) {
  Exchange exchange(gateway_, client_wire_, request, response);
  try {
    exchange.run();
  } catch (const std::exception& error) {
    exchange.internalError(error);
  }
}

}  // namespace sluice::http
