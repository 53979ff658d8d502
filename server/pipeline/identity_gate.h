#pragma once
// Who is calling, for the handlers that only need the caller (GET /v1/models): Admission's
// identify step (admission.h) over a Poco request.

#include <expected>
#include <optional>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/pipeline/admission.h"
#include "server/http/gateway.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {

// nullopt inside the expected: the gateway runs with --insecure-no-auth (anonymous).
// Errors as Admission::identify: 401 invalid_api_key, 403 scope_denied, 503 identity_unavailable.
std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request);

}  // namespace sluice::pipeline
