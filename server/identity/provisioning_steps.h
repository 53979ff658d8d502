#pragma once
// What provisioning.cc (dispatch, Users) and provisioning_groups.cc (Groups) share: the call's
// context, answers, the admin_events record and the role rule after membership changes. Internal
// to server/identity.

#include <string>
#include <string_view>
#include <vector>

#include "server/identity/provisioning.h"
#include "server/scim/listing.h"
#include "server/scim/scim_error.h"
#include "server/scim/user_resource.h"

namespace sluice::identity::provisioning {

struct Step {
  const ProvisioningStores& stores;
  const ScimCall& call;
  const std::vector<std::string>& admin_groups;
  std::chrono::system_clock::time_point now;
  ScimAnswer& answer;

  // Appends an admin_events row (actor "scim"); detail cut to the table's bound.
  void record(std::string_view action, std::string_view target, std::string detail) const;
  // Sets each named member's role from its groups when its source lets groups decide (group_roles.h).
  void settleRoles(const std::vector<std::string>& names) const;
};

ScimAnswer ok(nlohmann::json body);
ScimAnswer failed(const scim::ScimError& error);
ScimAnswer notFound(std::string_view what, std::string_view id);
// The User resource of `user` at `base_url`.
nlohmann::json renderDirectoryUser(const store::DirectoryUser& user, std::string_view base_url);

ScimAnswer serveUsers(const Step& step, const std::string& id);
ScimAnswer serveGroups(const Step& step, const std::string& id);

}  // namespace sluice::identity::provisioning
