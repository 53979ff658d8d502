#pragma once
// The console's signed-in sessions, in this process's memory. A session is created when a member
// signs in with an API key or through single sign-on (oidc_sign_in.h) and identified by a random 256-bit id carried in an HttpOnly cookie;
// it holds a second random value, the CSRF token, that every state-changing call must present in
// the X-CSRF-Token header.
//
// Expiry: a session ends `idle` after its last use, and `lifetime` after it was created, whichever
// comes first. Time is only the `now` passed in.
//
// This table is each process's cache: with a database the sessions live in PostgreSQL
// (session_store.h), so every replica of a fleet knows every session, and a restart signs no one out.
//
// Thread-safe.

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace sluice::admin {

using TimePoint = std::chrono::system_clock::time_point;

struct Session {
  std::string id;    // 64 hex digits: 256 bits from OpenSSL's RAND_bytes
  std::string csrf;  // 64 hex digits, independent of the id
  std::string user;  // the member who signed in
  std::string api_key_id;  // the key signed in with: the session lasts no longer than it admits its member;
                           // "" for a single sign-on session (it lasts while its member is enabled)
  bool admin = false;      // the member's role at the last check: admins see every page, members their own
  TimePoint created_at{};
  TimePoint last_seen{};
  TimePoint verified_at{};  // when the key was last checked to still admit an enabled admin
};

struct SessionPolicy {
  std::chrono::seconds idle{3600};
  std::chrono::seconds lifetime{12 * 3600};
  size_t max_sessions = 10'000;  // past it, the least recently used session is dropped
};

class SessionTable {
 public:
  explicit SessionTable(SessionPolicy policy = {}) : policy_(policy) {}

  Session create(const std::string& user, const std::string& api_key_id, TimePoint now, bool admin = true);
  // The live session with this id (and marks it used at `now`); nullopt when unknown or expired
  // (an expired one is removed).
  std::optional<Session> find(const std::string& id, TimePoint now);
  // Marks the session checked at `now`; `admin`, when given, is the member's role found then.
  void markVerified(const std::string& id, TimePoint now, std::optional<bool> admin = std::nullopt);
  // A session another replica opened (read from the shared store): kept here from now on, to be
  // verified on its first use.
  void adopt(Session session, TimePoint now);
  void erase(const std::string& id);
  size_t size() const;
  const SessionPolicy& policy() const { return policy_; }

 private:
  bool expired(const Session& session, TimePoint now) const;

  SessionPolicy policy_;
  mutable std::mutex mutex_;
  std::map<std::string, Session, std::less<>> sessions_;
};

// 32 random bytes as 64 lower-case hex digits (OpenSSL RAND_bytes; throws std::runtime_error if it fails).
std::string randomToken();

// Compares two strings in time independent of where they differ.
bool constantTimeEquals(const std::string& a, const std::string& b);

}  // namespace sluice::admin
