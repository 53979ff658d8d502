#include "tests/fakes/fake_key_directory.h"

#include <algorithm>
#include <stdexcept>

namespace sluice::fakes {

void FakeKeyDirectory::enter() {
  ++lookups_;
  if (failing_) throw std::runtime_error("database unreachable");
}

std::optional<store::KeyMemberRow> FakeKeyDirectory::joined(const StoredKey& key) const {
  const auto member = members_.find(key.row.user);
  if (member == members_.end()) return std::nullopt;
  store::KeyMemberRow row;
  row.key = key.row;
  row.hash = key.hash;
  row.role = member->second.role;
  row.groups = member->second.groups;
  row.projects = member->second.projects;
  row.primary_project = member->second.primary_project;
  row.member_disabled_at = member->second.disabled_at;
  return row;
}

std::optional<store::KeyMemberRow> FakeKeyDirectory::findKeyForUse(std::string_view hash, store::TimePoint now,
                                                                   std::chrono::seconds touch_interval) {
  std::lock_guard lock(mutex_);
  enter();
  for (auto& [id, key] : keys_) {
    if (key.hash != hash) continue;
    auto found = joined(key);
    if (found && !key.row.revoked_at &&
        (!key.row.last_used_at || *key.row.last_used_at < now - touch_interval)) {
      key.row.last_used_at = now;
    }
    return found;
  }
  return std::nullopt;
}

std::optional<store::KeyMemberRow> FakeKeyDirectory::findKeyById(std::string_view id) {
  std::lock_guard lock(mutex_);
  enter();
  const auto found = keys_.find(id);
  if (found == keys_.end()) return std::nullopt;
  return joined(found->second);
}

std::vector<store::SubjectRow> FakeKeyDirectory::findMembersBySubjects(const std::vector<std::string>& subjects) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::SubjectRow> matches;
  for (auto subject_at = subjects.begin(); subject_at != subjects.end(); ++subject_at) {
    const std::string& subject = *subject_at;
    if (std::find(subjects.begin(), subject_at, subject) != subject_at) continue;  // asked twice, matched once
    for (const auto& [name, member] : members_) {
      const auto& held = member.cert_subjects;
      if (std::find(held.begin(), held.end(), subject) != held.end()) matches.push_back({subject, member});
    }
  }
  return matches;
}

std::optional<store::MemberRow> FakeKeyDirectory::findMember(std::string_view name) {
  std::lock_guard lock(mutex_);
  enter();
  const auto found = members_.find(name);
  if (found == members_.end()) return std::nullopt;
  return found->second;
}

std::vector<store::SealedRow> FakeKeyDirectory::sealedCredentials(std::string_view user) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::SealedRow> rows;
  const auto found = sealed_.find(user);
  if (found == sealed_.end()) return rows;
  for (const StoredSealed& stored : found->second) rows.push_back(stored.row);
  return rows;
}

void FakeKeyDirectory::putMember(store::MemberRow member) {
  std::lock_guard lock(mutex_);
  std::sort(member.cert_subjects.begin(), member.cert_subjects.end());
  const std::string name = member.name;
  members_[name] = std::move(member);
}

void FakeKeyDirectory::deleteMember(const std::string& name) {
  std::lock_guard lock(mutex_);
  members_.erase(name);
}

void FakeKeyDirectory::disableMember(const std::string& name, store::TimePoint at) {
  std::lock_guard lock(mutex_);
  auto& member = members_.at(name);
  if (!member.disabled_at) member.disabled_at = at;
}

void FakeKeyDirectory::putKey(store::KeyRow key, std::string hash) {
  std::lock_guard lock(mutex_);
  const std::string id = key.id;
  keys_[id] = StoredKey{std::move(key), std::move(hash)};
}

void FakeKeyDirectory::revokeKey(const std::string& id, store::TimePoint at) {
  std::lock_guard lock(mutex_);
  auto& key = keys_.at(id).row;
  if (!key.revoked_at) key.revoked_at = at;
}

void FakeKeyDirectory::putSealed(const std::string& user, store::SealedRow sealed) {
  std::lock_guard lock(mutex_);
  auto& rows = sealed_[user];
  std::erase_if(rows, [&](const StoredSealed& stored) { return stored.row.credential_id == sealed.credential_id; });
  rows.push_back(StoredSealed{std::move(sealed), {}});
  std::sort(rows.begin(), rows.end(),
            [](const StoredSealed& a, const StoredSealed& b) { return a.row.credential_id < b.row.credential_id; });
}

store::KeyRow FakeKeyDirectory::key(const std::string& id) const {
  std::lock_guard lock(mutex_);
  const auto found = keys_.find(id);
  if (found == keys_.end()) throw std::out_of_range("no key " + id);
  return found->second.row;
}

size_t FakeKeyDirectory::lookups() const {
  std::lock_guard lock(mutex_);
  return lookups_;
}

void FakeKeyDirectory::setFailing(bool failing) {
  std::lock_guard lock(mutex_);
  failing_ = failing;
}

}  // namespace sluice::fakes
