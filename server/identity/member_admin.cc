#include "server/identity/member_admin.h"

#include <algorithm>

namespace sluice::identity {

namespace {

constexpr size_t kMaxActor = 200;
constexpr size_t kMaxDetail = 2000;

std::string listText(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text.empty() ? "-" : text;
}

void record(const AdminStores& stores, std::string_view action, std::string_view target, std::string detail,
            TimePoint now) {
  if (detail.size() > kMaxDetail) detail = detail.substr(0, kMaxDetail - 3) + "...";
  stores.events.append(store::AdminEventRow{0, now, stores.actor, std::string(action), std::string(target), detail});
}

bool enabledAdmin(const Member& member) { return member.role == Role::Admin && !member.disabled(); }

// Refuses a change that takes `name` (an enabled admin) out of the admins while no other is enabled.
std::optional<MemberError> lastAdminRefusal(store::MemberRoster& roster, std::string_view name, std::string_view what) {
  for (const Member& other : listMembers(roster)) {
    if (other.name != name && enabledAdmin(other)) return std::nullopt;
  }
  return MemberError{MemberErrorKind::LastAdmin, std::string(name) + " is the only enabled admin: add or enable "
                                                     "another admin before you " + std::string(what)};
}

std::string keyDetail(const ApiKeyInfo& key) {
  std::string detail = "key " + key.prefix;
  if (key.name) detail += " name " + *key.name;
  if (key.project) detail += " project " + *key.project;
  return detail;
}

}  // namespace

std::string adminActor(std::string_view via, std::string_view who) {
  std::string actor = std::string(via) + ":" + std::string(who.empty() ? "unknown" : who);
  if (actor.size() > kMaxActor) actor.resize(kMaxActor);
  for (char& c : actor) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return actor;
}

std::string describeUpdate(const Member& before, const Member& after) {
  std::string detail;
  const auto field = [&](std::string_view name, const std::string& was, const std::string& now) {
    if (was == now) return;
    detail += (detail.empty() ? "" : "; ") + std::string(name) + " " + was + " -> " + now;
  };
  field("role", std::string(toString(before.role)), std::string(toString(after.role)));
  field("groups", listText(before.groups), listText(after.groups));
  field("projects", listText(before.projects), listText(after.projects));
  field("primary", before.primary_project.value_or("-"), after.primary_project.value_or("-"));
  return detail.empty() ? "no change" : detail;
}

std::expected<Member, MemberError> adminAddMember(const AdminStores& stores, const NewMember& member, TimePoint now) {
  auto added = addMember(stores.members, member, now);
  if (!added) return added;
  record(stores, "member.add", added->name,
         "role " + std::string(toString(added->role)) + "; groups " + listText(added->groups) + "; projects " +
             listText(added->projects) + "; primary " + added->primary_project.value_or("-"),
         now);
  return added;
}

std::expected<Member, MemberError> adminUpdateMember(const AdminStores& stores, std::string_view name,
                                                     const MemberUpdate& update, TimePoint now) {
  const auto before = findMember(stores.members, name);
  if (!before) return std::unexpected(MemberError{MemberErrorKind::NoSuchMember, "no member named '" + std::string(name) + "'"});
  NewMember next;
  next.name = before->name;
  next.role = update.role.value_or(before->role);
  next.groups = withoutDuplicates(update.groups.value_or(before->groups));
  next.projects = withoutDuplicates(update.projects.value_or(before->projects));
  if (update.primary_project) {
    if (!update.primary_project->empty()) next.primary_project = *update.primary_project;
  } else if (before->primary_project &&
             std::find(next.projects.begin(), next.projects.end(), *before->primary_project) != next.projects.end()) {
    next.primary_project = before->primary_project;
  } else if (!next.projects.empty()) {
    next.primary_project = next.projects.front();
  }
  if (auto problem = validateMember(next)) return std::unexpected(MemberError{MemberErrorKind::Invalid, *problem});
  if (enabledAdmin(*before) && next.role != Role::Admin) {
    if (auto refusal = lastAdminRefusal(stores.members, name, "make them a member")) return std::unexpected(*refusal);
  }
  store::MemberRow row;
  row.name = next.name;
  row.role = std::string(toString(next.role));
  row.groups = next.groups;
  row.projects = next.projects;
  row.primary_project = next.primary_project;
  const auto stored = stores.members.updateMember(row);
  if (!stored) return std::unexpected(memberErrorOf(stored.error(), name));
  Member after = memberOf(*stored);
  record(stores, "member.update", after.name, describeUpdate(*before, after), now);
  return after;
}

std::expected<bool, MemberError> adminSetDisabled(const AdminStores& stores, std::string_view name, bool disabled,
                                                  TimePoint now) {
  const auto before = findMember(stores.members, name);
  const MemberError missing{MemberErrorKind::NoSuchMember, "no member named '" + std::string(name) + "'"};
  if (!before) return std::unexpected(missing);
  if (disabled && enabledAdmin(*before)) {
    if (auto refusal = lastAdminRefusal(stores.members, name, "disable them")) return std::unexpected(*refusal);
  }
  bool changed = false;
  if (disabled) {
    const auto result = stores.members.setDisabled(name, now);
    if (result == store::DisableChange::NoSuchMember) return std::unexpected(missing);
    changed = result == store::DisableChange::Disabled;
  } else {
    const auto result = stores.members.clearDisabled(name);
    if (result == store::EnableChange::NoSuchMember) return std::unexpected(missing);
    changed = result == store::EnableChange::Enabled;
  }
  if (changed) record(stores, disabled ? "member.disable" : "member.enable", name, "", now);
  return changed;
}

std::expected<void, MemberError> adminDeleteMember(const AdminStores& stores, std::string_view name, TimePoint now) {
  const auto before = findMember(stores.members, name);
  if (before && enabledAdmin(*before)) {
    if (auto refusal = lastAdminRefusal(stores.members, name, "delete them")) return std::unexpected(*refusal);
  }
  switch (stores.members.removeMember(name)) {
    case store::RemoveChange::Removed:
      record(stores, "member.delete", name, "role " + std::string(toString(before ? before->role : Role::Member)), now);
      return {};
    case store::RemoveChange::HasHistory:
      return std::unexpected(MemberError{
          MemberErrorKind::HasHistory,
          std::string(name) + " has API keys or audited requests, so they are kept: disable them instead "
                              "(sluicectl users disable " + std::string(name) + ")"});
    case store::RemoveChange::NoSuchMember: break;
  }
  return std::unexpected(MemberError{MemberErrorKind::NoSuchMember, "no member named '" + std::string(name) + "'"});
}

std::expected<CreatedApiKey, KeyError> adminCreateKey(const AdminStores& stores, const NewApiKey& key, TimePoint now) {
  auto created = createApiKey(stores.members, stores.keys, key, now);
  if (created) record(stores, "key.create", created->info.user, keyDetail(created->info), now);
  return created;
}

RevokeResult adminRevokeKey(const AdminStores& stores, std::string_view id, TimePoint now, ApiKeyInfo* info) {
  ApiKeyInfo revoked;
  const RevokeResult result = revokeApiKey(stores.keys, id, now, &revoked);
  if (result == RevokeResult::Revoked) record(stores, "key.revoke", revoked.user, keyDetail(revoked), now);
  if (info && result != RevokeResult::NoSuchKey) *info = revoked;
  return result;
}

}  // namespace sluice::identity
