#include "server/pipeline/profile.h"

#include <stdexcept>

#include "server/http/respond.h"
#include "server/pipeline/exchange.h"

namespace sluice::pipeline {

// The execute hooks of a profile that never plans: reaching one is a bug, answered as such by the
// Exchange's error boundary (500), never a request sent with an empty body.

MaskOutcome Profile::maskOnce(const protection::Detector&, const protection::MaskLimits&) {
  return std::unexpected("this endpoint sends nothing to a provider");
}

std::expected<std::string, wire::ApiError> Profile::bodyFor(const dispatch::Attempt&, const dispatch::Plan&, bool) {
  throw std::logic_error("bodyFor() of a profile that sends nothing");
}

pipeline::RelayResult Profile::relay(Exchange&, const dispatch::Plan&, const dispatch::Attempt&, pipeline::Answer&, bool,
                                 pipeline::RelayOptions) {
  throw std::logic_error("relay() of a profile that sends nothing");
}

void Profile::answerRefusal(Exchange& exchange, const wire::ApiError& error) {
  http::sendError(exchange.response(), clientWire(), error, exchange.request().id());
}

dispatch::Charge Profile::charge(Exchange&, const dispatch::Attempt&, pipeline::RelayResult&) { return {}; }

}  // namespace sluice::pipeline
