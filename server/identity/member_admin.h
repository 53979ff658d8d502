#pragma once
// An administrator's changes to members and their API keys, as sluicectl and the console make them:
// add, update (role, groups, projects, primary project), disable, enable, delete; create and revoke
// keys. Each change that is stored is then recorded in store::AdminEvents (who, what, to whom,
// when); one that is refused records nothing. The rules on top of member_store.h and key_store.h:
// no change may leave the gateway without an enabled admin, and a member with keys or audited
// requests is never deleted (disable them instead), so a later member of the same name never
// inherits their history.
//
// Throws what the stores throw when the database fails. Thread-safe as the stores are; the
// last-admin check reads then writes, so two admins demoting each other at the same instant can
// both succeed (a new admin is then made with `sluicectl users add --role admin`).

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/store/admin_events.h"

namespace sluice::identity {

// Who makes a change: "<via>:<who>" ("console:alice", "cli:root"), at most 200 bytes, every byte
// outside printable ASCII written '?'.
std::string adminActor(std::string_view via, std::string_view who);

struct AdminStores {
  store::MemberRoster& members;
  store::KeyRegistry& keys;
  store::AdminEvents& events;
  std::string actor;  // adminActor()
};

// What an update changes; what is absent stays.
struct MemberUpdate {
  std::optional<Role> role;
  std::optional<std::vector<std::string>> groups;    // the whole new list (duplicates dropped)
  std::optional<std::vector<std::string>> projects;  // the whole new list (duplicates dropped)
  // Set: the new primary project ("" for none). Absent with new projects that no longer hold the
  // old primary: the first new project becomes primary (none when there are none).
  std::optional<std::string> primary_project;
};

std::expected<Member, MemberError> adminAddMember(const AdminStores& stores, const NewMember& member, TimePoint now);
std::expected<Member, MemberError> adminUpdateMember(const AdminStores& stores, std::string_view name,
                                                     const MemberUpdate& update, TimePoint now);
// `disabled` true disables, false enables. Returns whether anything changed (false: it already was).
std::expected<bool, MemberError> adminSetDisabled(const AdminStores& stores, std::string_view name, bool disabled,
                                                  TimePoint now);
std::expected<void, MemberError> adminDeleteMember(const AdminStores& stores, std::string_view name, TimePoint now);

std::expected<CreatedApiKey, KeyError> adminCreateKey(const AdminStores& stores, const NewApiKey& key, TimePoint now);
RevokeResult adminRevokeKey(const AdminStores& stores, std::string_view id, TimePoint now, ApiKeyInfo* info = nullptr);

// "role member -> admin; groups eng -> eng,ops": each field that differs ("-" for empty).
std::string describeUpdate(const Member& before, const Member& after);

}  // namespace sluice::identity
