#include "tests/fakes/fake_directory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace sluice::fakes {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool holds(const std::vector<std::string>& groups, std::string_view group) {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

bool matches(const store::MemberRow& member, const store::UserMatch& match) {
  using Field = store::UserMatch::Field;
  switch (match.field) {
    case Field::All: return true;
    case Field::Id: return member.scim_id == match.value;
    case Field::UserName: return lower(member.name) == lower(match.value);
    case Field::ExternalId: return member.external_id == match.value;
    case Field::Email: return member.email && lower(*member.email) == lower(match.value);
    case Field::DisplayName: return member.display_name && lower(*member.display_name) == lower(match.value);
  }
  return false;
}

}  // namespace

store::DirectoryUser FakeDirectory::userOf(const store::MemberRow& member) const {
  store::DirectoryUser user{member, {}, {}};
  if (const auto names = names_.find(member.name); names != names_.end()) {
    user.given_name = names->second.given;
    user.family_name = names->second.family;
  }
  return user;
}

void FakeDirectory::assignIds() {
  for (auto member : members_.listMembers()) {
    if (member.scim_id) continue;
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", ++next_id_);
    member.scim_id = id;
    members_.putMember(member);
  }
}

std::optional<store::DirectoryUser> FakeDirectory::findUser(std::string_view id) {
  std::lock_guard lock(mutex_);
  for (const auto& member : members_.listMembers()) {
    if (member.scim_id == id) return userOf(member);
  }
  return std::nullopt;
}

std::optional<store::DirectoryUser> FakeDirectory::findUserByName(std::string_view name) {
  std::lock_guard lock(mutex_);
  const auto member = members_.findMember(name);
  if (!member) return std::nullopt;
  return userOf(*member);
}

store::UserPage FakeDirectory::findUsers(const store::UserMatch& match, size_t offset, size_t limit) {
  std::lock_guard lock(mutex_);
  assignIds();
  store::UserPage page;
  for (const auto& member : members_.listMembers()) {
    if (!matches(member, match)) continue;
    if (page.total >= offset && page.users.size() < limit) page.users.push_back(userOf(member));
    ++page.total;
  }
  return page;
}

std::expected<store::DirectoryUser, store::RosterConflict> FakeDirectory::insertUser(const store::DirectoryUser& user,
                                                                                     const store::UserProfile& profile) {
  std::lock_guard lock(mutex_);
  if (members_.findMember(user.member.name)) {
    return std::unexpected(store::RosterConflict{store::RosterConflict::Kind::NameTaken, {}, {}});
  }
  store::MemberRow member = user.member;
  member.scim_id = profile.scim_id;
  member.external_id = profile.external_id;
  member.display_name = profile.display_name;
  member.email = profile.email;
  members_.putMember(member);
  names_[member.name] = {profile.given_name, profile.family_name};
  return userOf(member);
}

bool FakeDirectory::updateProfile(std::string_view name, const store::UserProfile& profile) {
  std::lock_guard lock(mutex_);
  auto member = members_.findMember(name);
  if (!member) return false;
  member->scim_id = profile.scim_id;
  member->external_id = profile.external_id;
  member->display_name = profile.display_name;
  member->email = profile.email;
  members_.putMember(*member);
  names_[member->name] = {profile.given_name, profile.family_name};
  return true;
}

bool FakeDirectory::detachUser(std::string_view name) {
  std::lock_guard lock(mutex_);
  auto member = members_.findMember(name);
  if (!member) return false;
  member->scim_id.reset();
  member->external_id.reset();
  members_.putMember(*member);
  return true;
}

std::optional<store::GroupRow> FakeDirectory::findGroup(std::string_view id) {
  std::lock_guard lock(mutex_);
  const auto found = groups_.find(id);
  if (found == groups_.end()) return std::nullopt;
  return found->second;
}

std::optional<store::GroupRow> FakeDirectory::findGroupByName(std::string_view display_name) {
  std::lock_guard lock(mutex_);
  for (const auto& [id, group] : groups_) {
    if (group.display_name == display_name) return group;
  }
  return std::nullopt;
}

store::GroupPage FakeDirectory::findGroups(const store::GroupMatch& match, size_t offset, size_t limit) {
  std::lock_guard lock(mutex_);
  std::vector<store::GroupRow> sorted;
  for (const auto& [id, group] : groups_) sorted.push_back(group);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.display_name < b.display_name; });
  store::GroupPage page;
  for (const auto& group : sorted) {
    using Field = store::GroupMatch::Field;
    const bool hit = match.field == Field::All || (match.field == Field::Id && group.id == match.value) ||
                     (match.field == Field::DisplayName && group.display_name == match.value) ||
                     (match.field == Field::ExternalId && group.external_id == match.value);
    if (!hit) continue;
    if (page.total >= offset && page.groups.size() < limit) page.groups.push_back(group);
    ++page.total;
  }
  return page;
}

std::expected<store::GroupRow, store::GroupConflict> FakeDirectory::insertGroup(const store::GroupRow& group) {
  std::lock_guard lock(mutex_);
  for (const auto& [id, existing] : groups_) {
    if (existing.display_name == group.display_name || id == group.id) {
      return std::unexpected(store::GroupConflict::NameTaken);
    }
  }
  groups_[group.id] = group;
  return group;
}

std::expected<std::vector<std::string>, store::GroupConflict> FakeDirectory::renameGroup(std::string_view id,
                                                                                         std::string_view name,
                                                                                         store::TimePoint now) {
  std::lock_guard lock(mutex_);
  const auto found = groups_.find(id);
  if (found == groups_.end()) return std::unexpected(store::GroupConflict::NoSuchGroup);
  const std::string from = found->second.display_name;
  if (from == name) return std::vector<std::string>();
  for (const auto& [other_id, other] : groups_) {
    if (other.display_name == name) return std::unexpected(store::GroupConflict::NameTaken);
  }
  found->second.display_name = std::string(name);
  found->second.updated_at = now;
  std::vector<std::string> changed;
  for (auto member : members_.listMembers()) {
    if (!holds(member.groups, from)) continue;
    std::erase(member.groups, from);
    if (!holds(member.groups, name)) member.groups.push_back(std::string(name));
    members_.putMember(member);
    changed.push_back(member.name);
  }
  return changed;
}

bool FakeDirectory::updateGroup(std::string_view id, const std::optional<std::string>& external_id, store::TimePoint now) {
  std::lock_guard lock(mutex_);
  const auto found = groups_.find(id);
  if (found == groups_.end()) return false;
  found->second.external_id = external_id;
  found->second.updated_at = now;
  return true;
}

std::optional<std::vector<std::string>> FakeDirectory::deleteGroup(std::string_view id) {
  std::lock_guard lock(mutex_);
  const auto found = groups_.find(id);
  if (found == groups_.end()) return std::nullopt;
  const std::string name = found->second.display_name;
  groups_.erase(found);
  std::vector<std::string> changed;
  for (auto member : members_.listMembers()) {
    if (!holds(member.groups, name)) continue;
    std::erase(member.groups, name);
    members_.putMember(member);
    changed.push_back(member.name);
  }
  return changed;
}

std::vector<store::DirectoryUser> FakeDirectory::groupMembers(std::string_view name) {
  std::lock_guard lock(mutex_);
  assignIds();
  std::vector<store::DirectoryUser> users;
  for (const auto& member : members_.listMembers()) {
    if (holds(member.groups, name)) users.push_back(userOf(member));
  }
  return users;
}

bool FakeDirectory::addToGroup(std::string_view name, std::string_view group) {
  std::lock_guard lock(mutex_);
  auto member = members_.findMember(name);
  if (!member || holds(member->groups, group)) return false;
  member->groups.push_back(std::string(group));
  members_.putMember(*member);
  return true;
}

bool FakeDirectory::removeFromGroup(std::string_view name, std::string_view group) {
  std::lock_guard lock(mutex_);
  auto member = members_.findMember(name);
  if (!member || !holds(member->groups, group)) return false;
  std::erase(member->groups, std::string(group));
  members_.putMember(*member);
  return true;
}

}  // namespace sluice::fakes
