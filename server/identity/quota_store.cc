#include "server/identity/quota_store.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "server/identity/sql_values.h"

namespace sluice::identity {

namespace {

int64_t secondsOf(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

auto orderKey(const QuotaCounter& c) {
  return std::tie(c.scope_kind, c.scope_value, c.window->id, c.span.start);
}

constexpr int kDeadlockRetries = 5;

}  // namespace

QuotaStore::QuotaStore(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

Reservation QuotaStore::reserve(const catalog::Quotas& quotas, const QuotaSubject& subject,
                                int64_t estimated_input_tokens, TimePoint now) {
  Reservation reservation;
  reservation.estimated_input_tokens = estimated_input_tokens;
  std::vector<QuotaCounter> counters = countersFor(quotas, subject, now);
  if (counters.empty()) return reservation;
  // Checked in the catalog's order (the first exceeded window is reported); locked in key order.
  std::vector<const QuotaCounter*> locking;
  for (const auto& counter : counters) locking.push_back(&counter);
  std::sort(locking.begin(), locking.end(), [](auto* a, auto* b) { return orderKey(*a) < orderKey(*b); });
  nlohmann::json rows = nlohmann::json::array();
  for (const QuotaCounter* counter : locking) {
    rows.push_back({{"k", counter->scope_kind},
                    {"v", counter->scope_value},
                    {"w", counter->window->id},
                    {"s", secondsOf(counter->span.start)},
                    {"e", secondsOf(counter->span.end)}});
  }
  const std::string rows_json = rows.dump();
  const bool enforce = quotas.mode == catalog::QuotaMode::Enforce;

  for (int attempt = 0;; ++attempt) {
    try {
      return pool_->run([&](pqxx::connection& connection) {
        Reservation result = reservation;
        pqxx::work transaction(connection);
        transaction.exec_params(
            "INSERT INTO quota_counters (scope_kind, scope_value, window_id, window_start, window_end) "
            "SELECT r.k, r.v, r.w, to_timestamp(r.s), to_timestamp(r.e) "
            "FROM json_to_recordset($1::json) AS r(k text, v text, w text, s bigint, e bigint) "
            "ORDER BY r.k, r.v, r.w, r.s ON CONFLICT DO NOTHING",
            rows_json);
        const auto locked = transaction.exec_params(
            "SELECT q.scope_kind, q.scope_value, q.window_id, q.requests, q.input_tokens, q.output_tokens, "
            "q.cost_microdollars FROM quota_counters q "
            "JOIN json_to_recordset($1::json) AS r(k text, v text, w text, s bigint, e bigint) "
            "ON q.scope_kind = r.k AND q.scope_value = r.v AND q.window_id = r.w AND q.window_start = to_timestamp(r.s) "
            "ORDER BY q.scope_kind, q.scope_value, q.window_id, q.window_start FOR UPDATE OF q",
            rows_json);
        for (const QuotaCounter& counter : counters) {
          QuotaUsage used;
          for (const auto& row : locked) {
            if (row[0].as<std::string>() == counter.scope_kind && row[1].as<std::string>() == counter.scope_value &&
                row[2].as<std::string>() == counter.window->id) {
              used.requests = row[3].as<int64_t>();
              used.input_tokens = row[4].as<int64_t>();
              used.output_tokens = row[5].as<int64_t>();
              used.cost_microdollars = row[6].as<int64_t>();
            }
          }
          if (auto breach = checkCounter(counter, used, estimated_input_tokens)) {
            result.breach = std::move(breach);
            break;
          }
        }
        if (result.breach && enforce) {
          result.admitted = false;
          transaction.commit();  // keeps the (empty) rows just created; nothing was counted
          return result;
        }
        transaction.exec_params(
            "UPDATE quota_counters q SET requests = q.requests + 1, input_tokens = q.input_tokens + $2 "
            "FROM json_to_recordset($1::json) AS r(k text, v text, w text, s bigint, e bigint) "
            "WHERE q.scope_kind = r.k AND q.scope_value = r.v AND q.window_id = r.w AND q.window_start = to_timestamp(r.s)",
            rows_json, estimated_input_tokens);
        transaction.commit();
        for (const QuotaCounter* counter : locking) {
          result.counted.push_back(
              CounterRef{counter->scope_kind, counter->scope_value, counter->window->id, counter->span.start});
        }
        return result;
      });
    } catch (const pqxx::deadlock_detected&) {
      // NOTE: cannot happen between reservers (same lock order); kept for safety against
      // unforeseen lock orders (e.g. an operator's manual UPDATE).
      if (attempt >= kDeadlockRetries) throw;
    }
  }
}

void QuotaStore::adjust(const Reservation& reservation, int64_t requests, int64_t input_tokens,
                        int64_t output_tokens, int64_t cost_microdollars) {
  if (reservation.counted.empty()) return;
  pool_->run([&](pqxx::connection& connection) {
    // One transaction, rows updated in the key order reserve() locks them in (`counted` is in that
    // order), so settling never deadlocks with reservers, and a retry after a cut connection
    // cannot count twice.
    pqxx::work transaction(connection);
    for (const CounterRef& counter : reservation.counted) {
      transaction.exec_params(
          "UPDATE quota_counters SET requests = requests + $5, input_tokens = input_tokens + $6, "
          "output_tokens = output_tokens + $7, cost_microdollars = cost_microdollars + $8 "
          "WHERE scope_kind = $1 AND scope_value = $2 AND window_id = $3 AND window_start = to_timestamp($4)",
          counter.scope_kind, counter.scope_value, counter.window_id, secondsOf(counter.window_start), requests,
          input_tokens, output_tokens, cost_microdollars);
    }
    transaction.commit();
  });
}

void QuotaStore::settle(const Reservation& reservation, const QuotaUsage& usage) {
  adjust(reservation, 0, usage.input_tokens - reservation.estimated_input_tokens, usage.output_tokens,
         usage.cost_microdollars);
}

void QuotaStore::release(const Reservation& reservation) {
  adjust(reservation, -1, -reservation.estimated_input_tokens, 0, 0);
}

size_t QuotaStore::prune(TimePoint before) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    return query.exec_params("DELETE FROM quota_counters WHERE window_end < " + sql::timestampParam(1),
                             sql::micros(before))
        .affected_rows();
  });
}

}  // namespace sluice::identity
