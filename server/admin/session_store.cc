#include "server/admin/session_store.h"

#include <openssl/sha.h>

namespace sluice::admin {

std::string sessionIdHash(const std::string& id) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(id.data()), id.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "\\x";
  for (const unsigned char byte : digest) {
    text += kHex[byte >> 4];
    text += kHex[byte & 15];
  }
  return text;
}

void storeSession(store::ConsoleSessions& sessions, const Session& session, std::chrono::seconds lifetime) {
  sessions.open(store::SessionRow{sessionIdHash(session.id), session.csrf, session.user, session.api_key_id}, lifetime);
}

std::optional<Session> loadSession(store::ConsoleSessions& sessions, const std::string& id, std::chrono::seconds idle) {
  const auto row = sessions.find(sessionIdHash(id), idle);
  if (!row) return std::nullopt;
  Session session;
  session.id = id;
  session.csrf = row->csrf;
  session.user = row->user;
  session.api_key_id = row->api_key_id;
  session.created_at = row->created_at;
  return session;
}

bool touchSession(store::ConsoleSessions& sessions, const std::string& id, std::chrono::seconds idle) {
  return sessions.touch(sessionIdHash(id), idle);
}

void deleteSession(store::ConsoleSessions& sessions, const std::string& id) { sessions.close(sessionIdHash(id)); }

}  // namespace sluice::admin
