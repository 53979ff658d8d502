#include "server/provisioning/admin_groups.h"

namespace sluice::provisioning {

std::vector<std::string> adminGroupsOf(const catalog::Catalog& catalog) {
  if (!catalog.console.oidc) return {};
  return catalog.console.oidc->admin_groups;
}

}  // namespace sluice::provisioning
