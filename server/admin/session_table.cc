#include "server/admin/session_table.h"

#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/rand.h>

namespace sluice::admin {

std::string randomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("RAND_bytes failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(64);
  for (const unsigned char byte : bytes) {
    text += kHex[byte >> 4];
    text += kHex[byte & 15];
  }
  return text;
}

bool constantTimeEquals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool SessionTable::expired(const Session& session, TimePoint now) const {
  return now - session.last_seen >= policy_.idle || now - session.created_at >= policy_.lifetime ||
         now < session.created_at;
}

Session SessionTable::create(const std::string& user, const std::string& api_key_id, TimePoint now, bool admin) {
  Session session;
  session.admin = admin;
  session.id = randomToken();
  session.csrf = randomToken();
  session.user = user;
  session.api_key_id = api_key_id;
  session.created_at = now;
  session.last_seen = now;
  session.verified_at = now;
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= policy_.max_sessions) {
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      it = expired(it->second, now) ? sessions_.erase(it) : std::next(it);
    }
    if (sessions_.size() >= policy_.max_sessions) {
      auto oldest = sessions_.begin();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        if (it->second.last_seen < oldest->second.last_seen) oldest = it;
      }
      sessions_.erase(oldest);
    }
  }
  sessions_[session.id] = session;
  return session;
}

std::optional<Session> SessionTable::find(const std::string& id, TimePoint now) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  if (expired(it->second, now)) {
    sessions_.erase(it);
    return std::nullopt;
  }
  it->second.last_seen = now;
  return it->second;
}

void SessionTable::adopt(Session session, TimePoint now) {
  session.last_seen = now;
  session.verified_at = TimePoint{};
  session.admin = false;  // until its first check
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= policy_.max_sessions) sessions_.erase(sessions_.begin());
  sessions_[session.id] = std::move(session);
}

void SessionTable::markVerified(const std::string& id, TimePoint now, std::optional<bool> admin) {
  std::lock_guard lock(mutex_);
  if (auto it = sessions_.find(id); it != sessions_.end()) {
    it->second.verified_at = now;
    if (admin) it->second.admin = *admin;
  }
}

void SessionTable::erase(const std::string& id) {
  std::lock_guard lock(mutex_);
  sessions_.erase(id);
}

size_t SessionTable::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace sluice::admin
