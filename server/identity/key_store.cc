#include "server/identity/key_store.h"

#include <algorithm>
#include <stdexcept>

#include "server/identity/member_store.h"

namespace sluice::identity {

namespace {

bool isBase62(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

}  // namespace

std::string_view ApiKeyInfo::status(TimePoint now) const {
  if (revoked_at) return "revoked";
  if (expires_at && *expires_at <= now) return "expired";
  return "active";
}

std::expected<CreatedApiKey, KeyError> createApiKey(store::MemberRoster& members, store::KeyRegistry& keys,
                                                    const NewApiKey& request, TimePoint now) {
  if (request.expires_at && *request.expires_at <= now) {
    return std::unexpected(KeyError{KeyErrorKind::Invalid, "the expiry must be in the future"});
  }
  const auto member = findMember(members, request.user);
  if (!member) {
    return std::unexpected(KeyError{KeyErrorKind::NoSuchMember, "no member named '" + request.user +
                                                                    "' (add one with `sluicectl users add`)"});
  }
  if (member->disabled()) {
    return std::unexpected(KeyError{KeyErrorKind::MemberDisabled, "member '" + request.user + "' is disabled"});
  }
  if (request.project &&
      std::find(member->projects.begin(), member->projects.end(), *request.project) == member->projects.end()) {
    return std::unexpected(KeyError{KeyErrorKind::NotInProject, "'" + request.user + "' is not a member of project '" +
                                                                    *request.project + "'"});
  }
  for (int attempt = 0;; ++attempt) {
    GeneratedKey generated = generateApiKey();
    store::KeyRow row;
    row.id = generated.id;
    row.user = request.user;
    row.project = request.project;
    row.name = request.name;
    row.created_at = now;
    row.expires_at = request.expires_at;
    auto stored = keys.insertKey(row, hashBytes(generated.hash));
    if (!stored) {
      // NOTE: an id collision (about one in 10^14 per pair of keys); a hash collision cannot happen.
      if (attempt < 5) continue;
      throw std::runtime_error("could not find an unused key id");
    }
    CreatedApiKey created;
    created.info = ApiKeyInfo{std::move(*stored)};
    created.key = std::move(generated.key);
    return created;
  }
}

std::vector<ApiKeyInfo> listApiKeys(store::KeyRegistry& keys, const std::optional<std::string>& user) {
  std::vector<ApiKeyInfo> out;
  for (store::KeyRow& row : keys.listKeys(user)) out.push_back(ApiKeyInfo{std::move(row)});
  return out;
}

std::optional<std::string> keyIdFrom(std::string_view text) {
  if (text.starts_with(kKeyPrefix)) text.remove_prefix(kKeyPrefix.size());
  if (text.size() != kKeyIdLength && text.size() != kKeyIdLength + kKeySecretLength) return std::nullopt;
  text = text.substr(0, kKeyIdLength);
  if (!std::all_of(text.begin(), text.end(), isBase62)) return std::nullopt;
  return std::string(text);
}

RevokeResult revokeApiKey(store::KeyRegistry& keys, std::string_view id, TimePoint now, ApiKeyInfo* info) {
  auto revoked = keys.setRevoked(id, now);
  if (!revoked) return RevokeResult::NoSuchKey;
  if (info) *info = ApiKeyInfo{revoked->key};
  return revoked->changed ? RevokeResult::Revoked : RevokeResult::AlreadyRevoked;
}

KeyRecord keyRecordOf(const store::KeyMemberRow& row) {
  KeyRecord record;
  if (row.hash.size() == record.hash.size()) std::copy(row.hash.begin(), row.hash.end(), record.hash.begin());
  record.key = ApiKeyInfo{row.key};
  record.caller.user = record.key.user;
  record.caller.role = parseRole(row.role).value_or(Role::Member);
  record.caller.groups = row.groups;
  record.caller.projects = row.projects;
  record.caller.primary_project = row.primary_project;
  record.caller.api_key_id = record.key.id;
  record.caller.key_project = record.key.project;
  record.member_disabled_at = row.member_disabled_at;
  return record;
}

std::optional<KeyRecord> verifiedKeyRecord(const std::optional<store::KeyMemberRow>& row, const KeyHash& hash) {
  if (!row || row->hash.size() != hash.size()) return std::nullopt;
  KeyRecord record = keyRecordOf(*row);
  if (!sameHash(record.hash, hash)) return std::nullopt;
  return record;
}

std::string_view hashBytes(const KeyHash& hash) {
  return std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size());
}

std::optional<KeyRecord> findKeyById(store::KeyDirectory& directory, std::string_view id) {
  auto row = directory.findKeyById(id);
  if (!row) return std::nullopt;
  return keyRecordOf(*row);
}

std::expected<Caller, KeyRefusal> keyAdmits(const std::optional<KeyRecord>& record, TimePoint now) {
  if (!record) return std::unexpected(KeyRefusal::Unknown);
  if (record->key.revoked_at) return std::unexpected(KeyRefusal::Revoked);
  if (record->key.expires_at && *record->key.expires_at <= now) return std::unexpected(KeyRefusal::Expired);
  if (record->member_disabled_at) return std::unexpected(KeyRefusal::MemberDisabled);
  return record->caller;
}

}  // namespace sluice::identity
