#include "server/http/identity_gate.h"

#include <chrono>

#include "server/identity/api_keys.h"
#include "server/log/json_log.h"

namespace sluice::http {

std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request) {
  const Identity& identity = gateway.identity();
  if (!identity.authenticator) return std::optional<Identified>();
  const std::string authorization = request.get("Authorization", "");
  const std::string x_api_key = request.get("x-api-key", "");
  const std::string_view presented = identity::presentedKey(authorization, x_api_key);
  std::expected<identity::Caller, identity::AuthFailure> caller =
      std::unexpected(identity::AuthFailure{identity::AuthFailureReason::Missing, ""});
  try {
    caller = identity.authenticator->authenticate(presented, std::chrono::system_clock::now());
  } catch (const std::exception& error) {
    log::error("cannot check the API key: identity store unavailable", {{"error", error.what()}});
    return std::unexpected(
        wire::ApiError{503, "identity_unavailable", "the gateway cannot check API keys right now; retry shortly", {}, 5});
  }
  if (!caller) {
    std::string message = caller.error().message;
    if (caller.error().reason == identity::AuthFailureReason::Missing) {
      message = "no API key: send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'";
    }
    return std::unexpected(wire::ApiError{401, "invalid_api_key", message, {}, {}});
  }
  std::optional<std::string_view> header;
  if (request.has(std::string(identity::kScopeProjectHeader))) {
    header = request.get(std::string(identity::kScopeProjectHeader));
  }
  auto scope = identity::attributeScope(*caller, header);
  if (!scope) return std::unexpected(wire::ApiError{403, std::string(identity::kScopeDenied), scope.error().message, {}, {}});
  Identified out;
  out.caller = std::move(*caller);
  out.scope = std::move(*scope);
  return std::optional<Identified>(std::move(out));
}

}  // namespace sluice::http
