#include "server/pipeline/identity_gate.h"

#include "server/identity/scope.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request) {
  Admission admission(gateway, "");
  if (auto admitted = admission.identify(presentedBy(request, *gateway.catalog())); !admitted) {
    return std::unexpected(admitted.error());
  }
  return admission.who();
}

}  // namespace sluice::pipeline
