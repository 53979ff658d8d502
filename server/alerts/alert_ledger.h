#pragma once
// Who sends a budget alert, and what each attempt gave. PgAlertLedger: tables budget_alerts and
// budget_alert_attempts (migrations/0015_budget_alerts.sql); the claim is one INSERT ... ON
// CONFLICT DO NOTHING on the primary key (window, scope kind, scope value, threshold, webhook,
// period start), so of any number of replicas exactly one gets true. Thread-safe; throws what the
// pool throws when PostgreSQL fails.

#include <memory>
#include <string>
#include <string_view>

#include "server/identity/budget_alerts.h"
#include "server/store/connection_pool.h"

namespace sluice::alerts {

class AlertLedger {
 public:
  virtual ~AlertLedger() = default;
  // True for the one caller that claims the alert first, fleet-wide; false ever after.
  virtual bool claim(const identity::AlertDue& alert, std::string_view replica) = 0;
  // One delivery attempt: `status` the HTTP status (0 when none came), `reason` short and secret-free.
  virtual void recordAttempt(const identity::AlertDue& alert, int attempt, int status, std::string_view reason) = 0;
  // The claimed alert's end: "delivered" or "failed".
  virtual void finish(const identity::AlertDue& alert, std::string_view outcome) = 0;
};

class PgAlertLedger : public AlertLedger {
 public:
  explicit PgAlertLedger(std::shared_ptr<store::ConnectionPool> pool);
  bool claim(const identity::AlertDue& alert, std::string_view replica) override;
  void recordAttempt(const identity::AlertDue& alert, int attempt, int status, std::string_view reason) override;
  void finish(const identity::AlertDue& alert, std::string_view outcome) override;

 private:
  std::shared_ptr<store::ConnectionPool> pool_;
};

}  // namespace sluice::alerts
