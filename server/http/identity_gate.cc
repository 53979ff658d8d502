#include "server/http/identity_gate.h"

#include "server/identity/scope.h"

namespace sluice::http {

std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request) {
  Admission admission(gateway, "");
  const std::string scope_header(identity::kScopeProjectHeader);
  std::optional<std::string> scope;
  if (request.has(scope_header)) scope = request.get(scope_header);
  if (auto admitted = admission.identify(request.get("Authorization", ""), request.get("x-api-key", ""), scope);
      !admitted) {
    return std::unexpected(admitted.error());
  }
  return admission.who();
}

}  // namespace sluice::http
