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

void storeSession(pqxx::connection& connection, const Session& session, std::chrono::seconds lifetime) {
  pqxx::work transaction(connection);
  transaction.exec("DELETE FROM console_sessions WHERE expires_at < now() - interval '1 day'");
  transaction.exec_params(
      "INSERT INTO console_sessions (id_hash, csrf, user_name, api_key_id, expires_at)"
      " VALUES ($1::bytea, $2, $3, $4, now() + make_interval(secs => $5))",
      sessionIdHash(session.id), session.csrf, session.user, session.api_key_id,
      static_cast<double>(lifetime.count()));
  transaction.commit();
}

std::optional<Session> loadSession(pqxx::connection& connection, const std::string& id, std::chrono::seconds idle) {
  pqxx::read_transaction query(connection);
  const auto rows = query.exec_params(
      "SELECT csrf, user_name, api_key_id, extract(epoch FROM created_at)::float8 FROM console_sessions"
      " WHERE id_hash = $1::bytea AND expires_at > now() AND last_seen > now() - make_interval(secs => $2)",
      sessionIdHash(id), static_cast<double>(idle.count()));
  if (rows.empty()) return std::nullopt;
  Session session;
  session.id = id;
  session.csrf = rows[0][0].c_str();
  session.user = rows[0][1].c_str();
  session.api_key_id = rows[0][2].c_str();
  session.created_at = TimePoint(std::chrono::duration_cast<TimePoint::duration>(
      std::chrono::duration<double>(rows[0][3].as<double>())));
  return session;
}

bool touchSession(pqxx::connection& connection, const std::string& id, std::chrono::seconds idle) {
  pqxx::work transaction(connection);
  const auto rows = transaction.exec_params(
      "UPDATE console_sessions SET last_seen = now()"
      " WHERE id_hash = $1::bytea AND expires_at > now() AND last_seen > now() - make_interval(secs => $2)"
      " RETURNING 1",
      sessionIdHash(id), static_cast<double>(idle.count()));
  transaction.commit();
  return !rows.empty();
}

void deleteSession(pqxx::connection& connection, const std::string& id) {
  pqxx::work transaction(connection);
  transaction.exec_params("DELETE FROM console_sessions WHERE id_hash = $1::bytea", sessionIdHash(id));
  transaction.commit();
}

}  // namespace sluice::admin
