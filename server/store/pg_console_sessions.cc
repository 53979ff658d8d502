#include "server/store/pg_console_sessions.h"

namespace sluice::store {

PgConsoleSessions::PgConsoleSessions(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

void PgConsoleSessions::open(const SessionRow& session, std::chrono::seconds lifetime) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    transaction.exec("DELETE FROM console_sessions WHERE expires_at < now() - interval '1 day'");
    transaction.exec_params(
        "INSERT INTO console_sessions (id_hash, csrf, user_name, api_key_id, expires_at)"
        " VALUES ($1::bytea, $2, $3, $4, now() + make_interval(secs => $5))",
        session.id_hash, session.csrf, session.user, session.api_key_id, static_cast<double>(lifetime.count()));
    transaction.commit();
  });
}

std::optional<SessionRow> PgConsoleSessions::find(const std::string& id_hash, std::chrono::seconds idle) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<SessionRow> {
    pqxx::read_transaction query(connection);
    const auto rows = query.exec_params(
        "SELECT csrf, user_name, api_key_id, extract(epoch FROM created_at)::float8 FROM console_sessions"
        " WHERE id_hash = $1::bytea AND expires_at > now() AND last_seen > now() - make_interval(secs => $2)",
        id_hash, static_cast<double>(idle.count()));
    if (rows.empty()) return std::nullopt;
    using TimePoint = std::chrono::system_clock::time_point;
    SessionRow session;
    session.id_hash = id_hash;
    session.csrf = rows[0][0].c_str();
    session.user = rows[0][1].c_str();
    session.api_key_id = rows[0][2].c_str();
    session.created_at = TimePoint(std::chrono::duration_cast<TimePoint::duration>(
        std::chrono::duration<double>(rows[0][3].as<double>())));
    return session;
  });
}

bool PgConsoleSessions::touch(const std::string& id_hash, std::chrono::seconds idle) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto rows = transaction.exec_params(
        "UPDATE console_sessions SET last_seen = now()"
        " WHERE id_hash = $1::bytea AND expires_at > now() AND last_seen > now() - make_interval(secs => $2)"
        " RETURNING 1",
        id_hash, static_cast<double>(idle.count()));
    transaction.commit();
    return !rows.empty();
  });
}

void PgConsoleSessions::close(const std::string& id_hash) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    transaction.exec_params("DELETE FROM console_sessions WHERE id_hash = $1::bytea", id_hash);
    transaction.commit();
  });
}

}  // namespace sluice::store
