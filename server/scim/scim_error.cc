#include "server/scim/scim_error.h"

namespace sluice::scim {

nlohmann::json errorBody(const ScimError& error) {
  nlohmann::json body = {{"schemas", {kErrorSchema}}, {"status", std::to_string(error.status)}, {"detail", error.detail}};
  if (!error.scim_type.empty()) body["scimType"] = error.scim_type;
  return body;
}

}  // namespace sluice::scim
