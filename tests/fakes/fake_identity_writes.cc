// FakeKeyDirectory's writers: MemberRoster, KeyRegistry and CredentialLocker over the same maps
// the KeyDirectory reads (fake_key_directory.cc).
#include <algorithm>
#include <stdexcept>

#include "tests/fakes/fake_key_directory.h"

namespace sluice::fakes {

namespace {

using store::RosterConflict;

bool holds(const store::MemberRow& member, std::string_view subject) {
  return std::find(member.cert_subjects.begin(), member.cert_subjects.end(), subject) != member.cert_subjects.end();
}

}  // namespace

const store::MemberRow* FakeKeyDirectory::holderOf(std::string_view subject) const {
  for (const auto& [name, member] : members_) {
    if (holds(member, subject)) return &member;
  }
  return nullptr;
}

std::expected<store::MemberRow, RosterConflict> FakeKeyDirectory::insertMember(const store::MemberRow& member) {
  std::lock_guard lock(mutex_);
  enter();
  if (members_.contains(member.name)) return std::unexpected(RosterConflict{RosterConflict::Kind::NameTaken, {}, {}});
  for (const std::string& subject : member.cert_subjects) {
    if (const store::MemberRow* holder = holderOf(subject)) {
      return std::unexpected(RosterConflict{RosterConflict::Kind::SubjectTaken, subject, holder->name});
    }
  }
  store::MemberRow stored = member;
  stored.disabled_at.reset();
  std::sort(stored.cert_subjects.begin(), stored.cert_subjects.end());
  members_[stored.name] = stored;
  return stored;
}

std::vector<store::MemberRow> FakeKeyDirectory::listMembers() {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::MemberRow> rows;
  for (const auto& [name, member] : members_) rows.push_back(member);
  return rows;
}

std::expected<bool, RosterConflict> FakeKeyDirectory::insertSubject(std::string_view name, std::string_view subject,
                                                                    store::TimePoint) {
  std::lock_guard lock(mutex_);
  enter();
  const auto member = members_.find(name);
  if (member == members_.end()) return std::unexpected(RosterConflict{RosterConflict::Kind::NoSuchMember, {}, {}});
  if (const store::MemberRow* holder = holderOf(subject)) {
    if (holder->name == name) return false;
    return std::unexpected(RosterConflict{RosterConflict::Kind::SubjectTaken, std::string(subject), holder->name});
  }
  auto& subjects = member->second.cert_subjects;
  subjects.emplace_back(subject);
  std::sort(subjects.begin(), subjects.end());
  return true;
}

bool FakeKeyDirectory::deleteSubject(std::string_view name, std::string_view subject) {
  std::lock_guard lock(mutex_);
  enter();
  const auto member = members_.find(name);
  if (member == members_.end()) return false;
  return std::erase(member->second.cert_subjects, std::string(subject)) > 0;
}

store::DisableChange FakeKeyDirectory::setDisabled(std::string_view name, store::TimePoint now) {
  std::lock_guard lock(mutex_);
  enter();
  const auto member = members_.find(name);
  if (member == members_.end()) return store::DisableChange::NoSuchMember;
  if (member->second.disabled_at) return store::DisableChange::AlreadyDisabled;
  member->second.disabled_at = now;
  return store::DisableChange::Disabled;
}

std::optional<store::KeyRow> FakeKeyDirectory::insertKey(const store::KeyRow& key, std::string_view hash) {
  std::lock_guard lock(mutex_);
  enter();
  // The table's foreign key: a key's member must exist (identity checks it before).
  if (!members_.contains(key.user)) throw std::invalid_argument("api_keys.user_name: no member " + key.user);
  if (keys_.contains(key.id)) return std::nullopt;
  for (const auto& [id, stored] : keys_) {
    if (stored.hash == hash) return std::nullopt;
  }
  store::KeyRow row = key;
  row.prefix = "sk-sluice-" + row.id;
  row.revoked_at.reset();
  row.last_used_at.reset();
  keys_[row.id] = StoredKey{row, std::string(hash)};
  return row;
}

std::vector<store::KeyRow> FakeKeyDirectory::listKeys(const std::optional<std::string>& user) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::KeyRow> rows;
  for (const auto& [id, stored] : keys_) {
    if (!user || stored.row.user == *user) rows.push_back(stored.row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const store::KeyRow& a, const store::KeyRow& b) { return a.created_at > b.created_at; });
  return rows;
}

std::optional<store::RevokedKey> FakeKeyDirectory::setRevoked(std::string_view id, store::TimePoint now) {
  std::lock_guard lock(mutex_);
  enter();
  const auto found = keys_.find(id);
  if (found == keys_.end()) return std::nullopt;
  store::KeyRow& row = found->second.row;
  const bool changed = !row.revoked_at;
  if (changed) row.revoked_at = now;
  return store::RevokedKey{row, changed};
}

store::SealedChange FakeKeyDirectory::upsertSealed(std::string_view user, const store::SealedRow& sealed,
                                                   store::TimePoint now) {
  std::lock_guard lock(mutex_);
  enter();
  if (!members_.contains(user)) return store::SealedChange::NoSuchMember;
  auto& rows = sealed_[std::string(user)];
  for (StoredSealed& stored : rows) {
    if (stored.row.credential_id != sealed.credential_id) continue;
    stored = StoredSealed{sealed, now};
    return store::SealedChange::Replaced;
  }
  rows.push_back(StoredSealed{sealed, now});
  std::sort(rows.begin(), rows.end(),
            [](const StoredSealed& a, const StoredSealed& b) { return a.row.credential_id < b.row.credential_id; });
  return store::SealedChange::Created;
}

std::vector<store::CredentialListing> FakeKeyDirectory::listSealed(const std::optional<std::string>& user) {
  std::lock_guard lock(mutex_);
  enter();
  std::vector<store::CredentialListing> out;
  for (const auto& [name, rows] : sealed_) {
    if (user && name != *user) continue;
    for (const StoredSealed& stored : rows) {
      out.push_back(store::CredentialListing{name, stored.row.credential_id, stored.row.key_id, stored.updated_at});
    }
  }
  return out;
}

std::expected<size_t, std::string> FakeKeyDirectory::resealAll(const store::Resealer& reseal, store::TimePoint now) {
  std::lock_guard lock(mutex_);  // held throughout: no other write runs meanwhile
  enter();
  auto next = sealed_;  // changed as a whole, or not at all
  size_t resealed = 0;
  for (auto& [user, rows] : next) {
    for (StoredSealed& stored : rows) {
      auto changed = reseal(user, stored.row);
      if (!changed) return std::unexpected(changed.error());
      if (!*changed) continue;
      stored = StoredSealed{std::move(**changed), now};
      ++resealed;
    }
  }
  sealed_ = std::move(next);
  return resealed;
}

}  // namespace sluice::fakes
