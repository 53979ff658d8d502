#include "server/identity/authenticator.h"

#include <algorithm>
#include <condition_variable>
#include <exception>

#include "server/net/fiber.h"

#include "server/identity/api_keys.h"
#include "server/identity/credential_store.h"

namespace sluice::identity {

namespace {

constexpr std::chrono::milliseconds kMaxCacheTtl{2000};

AuthFailure failure(AuthFailureReason reason, std::string message) { return AuthFailure{reason, std::move(message)}; }

std::string hashKey(const KeyHash& hash) { return std::string(reinterpret_cast<const char*>(hash.data()), hash.size()); }

}  // namespace

std::string_view toString(AuthFailureReason reason) {
  switch (reason) {
    case AuthFailureReason::Missing: return "missing_key";
    case AuthFailureReason::Malformed: return "malformed_key";
    case AuthFailureReason::Unknown: return "unknown_key";
    case AuthFailureReason::Revoked: return "revoked_key";
    case AuthFailureReason::Expired: return "expired_key";
    case AuthFailureReason::MemberDisabled: return "member_disabled";
    case AuthFailureReason::UnmappedCertificate: return "unmapped_certificate";
    case AuthFailureReason::AmbiguousCertificate: return "ambiguous_certificate";
    case AuthFailureReason::UnknownMember: return "unknown_member";
  }
  return "unknown_key";
}

Authenticator::Authenticator(std::shared_ptr<store::KeyDirectory> directory, std::shared_ptr<const Vault> vault,
                             AuthenticatorOptions options)
    : directory_(std::move(directory)), vault_(std::move(vault)), options_(options) {
  options_.cache_ttl = std::min(options_.cache_ttl, kMaxCacheTtl);
}

bool Authenticator::fresh(TimePoint fetched_at, TimePoint now) const {
  // Either direction: threads read the clock a little apart; a clock stepped back by more than
  // the TTL must not extend an entry's life.
  const auto age = now > fetched_at ? now - fetched_at : fetched_at - now;
  return age < options_.cache_ttl;
}

template <class Map>
void Authenticator::makeRoom(Map& map, TimePoint now) {
  if (map.size() < options_.max_cache_entries) return;
  std::erase_if(map, [&](const auto& entry) { return !fresh(entry.second.fetched_at, now); });
  // NOTE: a flood of distinct keys within one TTL empties the cache; it costs queries, not memory.
  if (map.size() >= options_.max_cache_entries) map.clear();
}

struct Authenticator::KeyFlight {
  std::mutex mutex;
  std::condition_variable landed;       // callers off a fiber
  std::vector<net::fiber::Waker> wakers;  // parked fibers
  bool done = false;
  std::optional<KeyRecord> record;
  std::exception_ptr error;

  void land() {
    std::vector<net::fiber::Waker> waiting;
    {
      std::lock_guard lock(mutex);
      done = true;
      waiting.swap(wakers);
    }
    landed.notify_all();
    for (const auto& waker : waiting) waker.wake();
  }

  std::optional<KeyRecord> await() {
    for (;;) {
      std::unique_lock lock(mutex);
      if (done) break;
      if (!net::fiber::active()) {
        landed.wait(lock, [&] { return done; });
        break;
      }
      // A wake sent before the park is delivered after it: the worker reads its inbox only once
      // this fiber has parked.
      wakers.push_back(net::fiber::currentWaker());
      lock.unlock();
      net::fiber::park(net::fiber::kNever);
    }
    if (error) std::rethrow_exception(error);
    return record;
  }
};

std::optional<KeyRecord> Authenticator::lookupKey(const KeyHash& hash, TimePoint now) {
  const std::string cache_key = hashKey(hash);
  std::shared_ptr<KeyFlight> flight;
  bool lead = false;
  {
    std::lock_guard lock(mutex_);
    ++stats_.key_lookups;
    const auto found = keys_.find(cache_key);
    if (found != keys_.end() && fresh(found->second.fetched_at, now)) return found->second.record;
    auto& in_flight = key_flights_[cache_key];
    if (!in_flight) {
      in_flight = std::make_shared<KeyFlight>();
      lead = true;
      ++stats_.key_queries;
    } else {
      ++stats_.key_shared;
    }
    flight = in_flight;
  }
  if (!lead) return flight->await();

  try {
    // last_used_at is for people ("is this key still used?"): refreshed on a cache miss at most
    // once per interval, so it costs nothing on the hot path.
    flight->record = verifiedKeyRecord(directory_->findKeyForUse(hashBytes(hash), now, options_.last_used_interval), hash);
  } catch (...) {
    flight->error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    key_flights_.erase(cache_key);
    // A failed lookup is not remembered: the next caller asks again.
    if (!flight->error) {
      makeRoom(keys_, now);
      keys_[cache_key] = KeyEntry{now, flight->record};
    }
  }
  flight->land();
  if (flight->error) std::rethrow_exception(flight->error);
  return flight->record;
}

std::expected<Caller, AuthFailure> Authenticator::authenticate(std::string_view presented_key, TimePoint now) {
  if (presented_key.empty()) {
    return std::unexpected(failure(AuthFailureReason::Missing,
                                   "no API key: send it as `Authorization: Bearer <key>` or `x-api-key: <key>`"));
  }
  if (!parseApiKey(presented_key)) {
    return std::unexpected(failure(AuthFailureReason::Malformed,
                                   "the API key is not a Sluice key (expected sk-sluice- followed by 51 letters and digits)"));
  }
  const std::optional<KeyRecord> record = lookupKey(hashApiKey(presented_key), now);
  auto admitted = keyAdmits(record, now);
  if (admitted) return std::move(*admitted);
  switch (admitted.error()) {
    case KeyRefusal::Unknown: return std::unexpected(failure(AuthFailureReason::Unknown, "invalid API key"));
    case KeyRefusal::Revoked:
      return std::unexpected(failure(AuthFailureReason::Revoked, "API key " + record->key.prefix + " was revoked"));
    case KeyRefusal::Expired:
      return std::unexpected(failure(AuthFailureReason::Expired, "API key " + record->key.prefix + " has expired"));
    case KeyRefusal::MemberDisabled:
      return std::unexpected(failure(AuthFailureReason::MemberDisabled, "member " + record->caller.user + " is disabled"));
  }
  return std::unexpected(failure(AuthFailureReason::Unknown, "invalid API key"));
}

std::vector<SubjectMatch> Authenticator::lookupMembers(const std::vector<std::string>& subjects, const std::string* name,
                                                       TimePoint now) {
  std::string cache_key = name ? "n\n" + *name : "s";
  if (!name) {
    for (const std::string& subject : subjects) cache_key += "\n" + subject;
  }
  {
    std::lock_guard lock(mutex_);
    const auto found = members_.find(cache_key);
    if (found != members_.end() && fresh(found->second.fetched_at, now)) return found->second.matches;
    ++stats_.member_queries;
  }
  // NOTE: no single flight here (unlike keys): a certificate is presented once per connection, not
  // once per request, so a burst of misses for the same names is not the common case.
  std::vector<SubjectMatch> matches;
  if (!name) {
    matches = subjectMatchesOf(directory_->findMembersBySubjects(subjects));
  } else if (auto member = directory_->findMember(*name)) {
    matches.push_back(SubjectMatch{"name:" + *name, memberOf(*member)});
  }
  std::lock_guard lock(mutex_);
  makeRoom(members_, now);
  members_[cache_key] = MemberEntry{now, matches};
  return matches;
}

namespace {

Caller callerOf(const Member& member, IdentitySource source, std::string subject) {
  Caller caller;
  caller.user = member.name;
  caller.role = member.role;
  caller.groups = member.groups;
  caller.projects = member.projects;
  caller.primary_project = member.primary_project;
  caller.source = source;
  caller.subject = std::move(subject);
  return caller;
}

}  // namespace

std::expected<Caller, AuthFailure> Authenticator::authenticateCertificate(const std::vector<std::string>& subjects,
                                                                          TimePoint now) {
  const auto unmapped = [] {
    return std::unexpected(failure(AuthFailureReason::UnmappedCertificate,
                                   "the client certificate stands for no member (map it with `sluicectl users add NAME "
                                   "--cert-subject cn:...|uri:...|email:...`)"));
  };
  if (subjects.empty()) return unmapped();
  const std::vector<SubjectMatch> matches = lookupMembers(subjects, nullptr, now);
  if (matches.empty()) return unmapped();
  for (const SubjectMatch& match : matches) {
    if (match.member.name != matches.front().member.name) {
      return std::unexpected(failure(AuthFailureReason::AmbiguousCertificate,
                                     "the client certificate stands for more than one member (" +
                                         matches.front().member.name + ", " + match.member.name + ")"));
    }
  }
  const SubjectMatch& match = matches.front();
  if (match.member.disabled()) {
    return std::unexpected(failure(AuthFailureReason::MemberDisabled, "member " + match.member.name + " is disabled"));
  }
  return callerOf(match.member, IdentitySource::Certificate, match.subject);
}

std::expected<Caller, AuthFailure> Authenticator::authenticateProxy(std::string_view value, bool by_email,
                                                                    TimePoint now) {
  std::vector<SubjectMatch> matches;
  if (by_email) {
    const std::string subject = emailSubject(value);
    if (!subject.empty()) matches = lookupMembers({subject}, nullptr, now);
  } else if (validName(value)) {
    const std::string name(value);
    matches = lookupMembers({}, &name, now);
  }
  if (matches.empty()) {
    return std::unexpected(failure(AuthFailureReason::UnknownMember,
                                   std::string("the identity proxy named no known member") +
                                       (by_email ? " (no member has the e-mail subject it sent)" : "")));
  }
  const SubjectMatch& match = matches.front();
  if (match.member.disabled()) {
    return std::unexpected(failure(AuthFailureReason::MemberDisabled, "member " + match.member.name + " is disabled"));
  }
  return callerOf(match.member, IdentitySource::Proxy, by_email ? match.subject : "name:" + match.member.name);
}

std::vector<StoredCredential> Authenticator::lookupCredentials(const std::string& user, TimePoint now) {
  {
    std::lock_guard lock(mutex_);
    const auto found = credentials_.find(user);
    if (found != credentials_.end() && fresh(found->second.fetched_at, now)) return found->second.stored;
    ++stats_.credential_queries;
  }
  std::vector<StoredCredential> stored;
  for (const store::SealedRow& row : directory_->sealedCredentials(user)) stored.push_back(storedCredentialOf(row));
  std::lock_guard lock(mutex_);
  makeRoom(credentials_, now);
  credentials_[user] = CredentialEntry{now, stored};
  return stored;
}

std::vector<std::string> Authenticator::credentialsFor(const std::string& user, TimePoint now) {
  std::vector<std::string> ids;
  for (const StoredCredential& stored : lookupCredentials(user, now)) ids.push_back(stored.credential_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::expected<std::string, CredentialFailure> Authenticator::personalKey(const std::string& user,
                                                                         const std::string& credential_id,
                                                                         TimePoint now) {
  const std::vector<StoredCredential> stored = lookupCredentials(user, now);
  const auto found = std::find_if(stored.begin(), stored.end(),
                                  [&](const StoredCredential& s) { return s.credential_id == credential_id; });
  if (found == stored.end()) {
    return std::unexpected(CredentialFailure{
        CredentialFailureReason::NotSet, user + " has no personal key for credential '" + credential_id +
                                             "' (set one with `sluicectl credentials set " + credential_id +
                                             " --user " + user + "`)"});
  }
  if (!vault_) {
    return std::unexpected(CredentialFailure{CredentialFailureReason::NoMasterKey,
                                             "personal credentials are unavailable: the gateway has no master key "
                                             "(SLUICE_MASTER_KEY or SLUICE_MASTER_KEY_FILE)"});
  }
  auto plaintext = vault_->open(found->sealed, credentialAssociatedData(user, credential_id));
  if (!plaintext) {
    return std::unexpected(CredentialFailure{CredentialFailureReason::Undecryptable,
                                             "the personal key of " + user + " for credential '" + credential_id +
                                                 "' cannot be decrypted: " + plaintext.error()});
  }
  return std::move(*plaintext);
}

void Authenticator::forgetAll() {
  std::lock_guard lock(mutex_);
  keys_.clear();
  credentials_.clear();
  members_.clear();
}

Authenticator::Stats Authenticator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace sluice::identity
