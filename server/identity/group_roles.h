#pragma once
// The rule that makes an admin from the identity provider's groups, shared by SCIM provisioning
// (server/identity/provisioning.h) and the OpenID Connect sign-in: when the catalog's
// gateway.console.oidc.admin_groups is not empty, a member made by SCIM or by a first sign-in is an
// admin exactly while one of their groups is one of those; with no admin_groups the groups decide
// nothing and the role stays as set. The last enabled admin is never demoted by it (kept, and the
// caller logs it), so a directory change cannot lock every admin out of the console.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity/caller.h"
#include "server/store/member_roster.h"

namespace sluice::identity {

// Admin iff one of `groups` is one of `admin_groups` (exact names); nullopt when `admin_groups`
// is empty. Pure.
std::optional<Role> roleFromGroups(const std::vector<std::string>& groups, const std::vector<std::string>& admin_groups);

// Whether the rule applies to a member made this way: "scim" and "sso" yes; members an
// administrator made ("cli", "console") keep the role they were given.
bool groupsDecideRole(std::string_view source);

struct RoleSettlement {
  enum class Outcome {
    Unchanged,      // the role already followed the groups (or admin_groups is empty)
    Promoted,       // member -> admin
    Demoted,        // admin -> member
    KeptLastAdmin,  // should be demoted but is the only enabled admin: stays admin
    NoSuchMember,
  };
  Outcome outcome = Outcome::Unchanged;
  Role role = Role::Member;  // the role the member has now
};

// Applies roleFromGroups to member `name` as the roster holds it now (its groups), writing the
// role when it changes. One read of the member, one of the roster when demoting (the last-admin
// check), one write. Throws what the roster throws. NOTE: the check reads then writes, as
// member_admin.h's does.
RoleSettlement settleRoleFromGroups(store::MemberRoster& roster, std::string_view name,
                                    const std::vector<std::string>& admin_groups);

}  // namespace sluice::identity
