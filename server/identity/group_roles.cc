#include "server/identity/group_roles.h"

#include <algorithm>

namespace sluice::identity {

std::optional<Role> roleFromGroups(const std::vector<std::string>& groups, const std::vector<std::string>& admin_groups) {
  if (admin_groups.empty()) return std::nullopt;
  const bool admin = std::any_of(groups.begin(), groups.end(), [&](const std::string& group) {
    return std::find(admin_groups.begin(), admin_groups.end(), group) != admin_groups.end();
  });
  return admin ? Role::Admin : Role::Member;
}

bool groupsDecideRole(std::string_view source) { return source == "scim" || source == "sso"; }

RoleSettlement settleRoleFromGroups(store::MemberRoster& roster, std::string_view name,
                                    const std::vector<std::string>& admin_groups) {
  using Outcome = RoleSettlement::Outcome;
  auto member = roster.findMember(name);
  if (!member) return {Outcome::NoSuchMember, Role::Member};
  const Role current = parseRole(member->role).value_or(Role::Member);
  const auto wanted = roleFromGroups(member->groups, admin_groups);
  if (!wanted || *wanted == current) return {Outcome::Unchanged, current};
  if (*wanted == Role::Member && !member->disabled_at) {
    const auto members = roster.listMembers();
    const bool another = std::any_of(members.begin(), members.end(), [&](const store::MemberRow& other) {
      return other.name != member->name && other.role == "admin" && !other.disabled_at;
    });
    if (!another) return {Outcome::KeptLastAdmin, Role::Admin};
  }
  store::MemberRow changed = *member;
  changed.role = std::string(toString(*wanted));
  if (!roster.updateMember(changed)) return {Outcome::NoSuchMember, current};
  return {*wanted == Role::Admin ? Outcome::Promoted : Outcome::Demoted, *wanted};
}

}  // namespace sluice::identity
