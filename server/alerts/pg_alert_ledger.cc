#include <pqxx/pqxx>

#include "server/alerts/alert_ledger.h"
#include "server/store/sql_values.h"

namespace sluice::alerts {

namespace {

// The primary key's six parameters from $1, in column order, and the WHERE clause naming them.
constexpr std::string_view kKeyColumns = "window_id, scope_kind, scope_value, threshold, webhook, period_start";

std::string keyWhere() {
  return "window_id = $1 AND scope_kind = $2 AND scope_value = $3 AND threshold = $4 AND webhook = $5 AND "
         "period_start = " + store::sql::timestampParam(6);
}

}  // namespace

PgAlertLedger::PgAlertLedger(std::shared_ptr<store::ConnectionPool> pool) : pool_(std::move(pool)) {}

bool PgAlertLedger::claim(const identity::AlertDue& alert, std::string_view replica) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    const auto inserted = query.exec_params(
        "INSERT INTO budget_alerts (" + std::string(kKeyColumns) + ", period_end, claimed_by, claimed_at) VALUES ($1, $2, $3, $4, $5, " +
            store::sql::timestampParam(6) + ", " + store::sql::timestampParam(7) + ", $8, now()) ON CONFLICT DO NOTHING",
        alert.window_id, alert.scope_kind, alert.scope_value, alert.percent, alert.webhook,
        store::sql::micros(alert.span.start), store::sql::micros(alert.span.end),
        std::string(replica.substr(0, 200)));
    return inserted.affected_rows() == 1;
  });
}

void PgAlertLedger::recordAttempt(const identity::AlertDue& alert, int attempt, int status, std::string_view reason) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    query.exec_params("INSERT INTO budget_alert_attempts (at, " + std::string(kKeyColumns) +
                          ", attempt, status, reason) VALUES (now(), $1, $2, $3, $4, $5, " + store::sql::timestampParam(6) +
                          ", $7, $8, $9)",
                      alert.window_id, alert.scope_kind, alert.scope_value, alert.percent, alert.webhook,
                      store::sql::micros(alert.span.start), attempt, status, std::string(reason.substr(0, 100)));
    return 0;
  });
}

void PgAlertLedger::finish(const identity::AlertDue& alert, std::string_view outcome) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    query.exec_params("UPDATE budget_alerts SET outcome = $7 WHERE " + keyWhere(), alert.window_id, alert.scope_kind,
                      alert.scope_value, alert.percent, alert.webhook, store::sql::micros(alert.span.start),
                      std::string(outcome));
    return 0;
  });
}

}  // namespace sluice::alerts
