#include "server/store/pg_admin_events.h"

#include "server/store/sql_values.h"

namespace sluice::store {

PgAdminEvents::PgAdminEvents(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

AdminEventRow PgAdminEvents::append(const AdminEventRow& event) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto row = transaction.exec_params1(
        "INSERT INTO admin_events (at, actor, action, target, detail) VALUES (" + sql::timestampParam(1) +
            ", $2, $3, $4, $5) RETURNING id",
        sql::micros(event.at), event.actor, event.action, event.target, event.detail);
    transaction.commit();
    AdminEventRow stored = event;
    stored.id = row[0].as<int64_t>();
    return stored;
  });
}

std::vector<AdminEventRow> PgAdminEvents::recent(size_t limit, const std::optional<std::string>& target) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction transaction(connection);
    const auto rows = transaction.exec_params(
        "SELECT id, " + sql::microsOf("at") +
            ", actor, action, target, detail FROM admin_events WHERE ($1::text IS NULL OR target = $1) "
            "ORDER BY at DESC, id DESC LIMIT $2",
        target, static_cast<int64_t>(limit));
    std::vector<AdminEventRow> out;
    for (const auto& row : rows) {
      out.push_back(AdminEventRow{row[0].as<int64_t>(), sql::fromMicros(row[1].as<int64_t>()), row[2].as<std::string>(),
                                  row[3].as<std::string>(), row[4].as<std::string>(), row[5].as<std::string>()});
    }
    return out;
  });
}

}  // namespace sluice::store
