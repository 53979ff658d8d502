#include "server/http/identity_gate.h"

#include "server/identity/scope.h"

namespace sluice::http {

std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request) {
  Admission admission(gateway, "");
  if (auto admitted = admission.identify(presentedBy(request, *gateway.catalog())); !admitted) {
    return std::unexpected(admitted.error());
  }
  return admission.who();
}

}  // namespace sluice::http
