#pragma once
// The groups that make an admin, as the live catalog says (gateway.console.oidc.admin_groups):
// empty when the catalog has no OpenID Connect sign-in or names none (the groups then decide no
// role: server/identity/group_roles.h).

#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace sluice::provisioning {

std::vector<std::string> adminGroupsOf(const catalog::Catalog& catalog);

}  // namespace sluice::provisioning
