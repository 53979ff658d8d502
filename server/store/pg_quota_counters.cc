#include "server/store/pg_quota_counters.h"

#include <nlohmann/json.hpp>

#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

int64_t secondsOf(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

constexpr int kDeadlockRetries = 5;

}  // namespace

PgQuotaCounters::PgQuotaCounters(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

bool PgQuotaCounters::reserve(const std::vector<CounterKey>& keys, int64_t estimated_input_tokens,
                              const std::function<bool(const std::vector<CounterTotals>&)>& admit) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CounterKey& key : keys) {
    rows.push_back({{"k", key.scope_kind},
                    {"v", key.scope_value},
                    {"w", key.window_id},
                    {"s", secondsOf(key.window_start)},
                    {"e", secondsOf(key.window_end)}});
  }
  const std::string rows_json = rows.dump();

  for (int attempt = 0;; ++attempt) {
    try {
      return pool_->run([&](pqxx::connection& connection) {
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
        std::vector<CounterTotals> totals(keys.size());
        for (size_t i = 0; i < keys.size(); ++i) {
          for (const auto& row : locked) {
            if (row[0].as<std::string>() == keys[i].scope_kind && row[1].as<std::string>() == keys[i].scope_value &&
                row[2].as<std::string>() == keys[i].window_id) {
              totals[i].requests = row[3].as<int64_t>();
              totals[i].input_tokens = row[4].as<int64_t>();
              totals[i].output_tokens = row[5].as<int64_t>();
              totals[i].cost_microdollars = row[6].as<int64_t>();
            }
          }
        }
        if (!admit(totals)) {
          transaction.commit();  // keeps the (empty) rows just created; nothing was counted
          return false;
        }
        transaction.exec_params(
            "UPDATE quota_counters q SET requests = q.requests + 1, input_tokens = q.input_tokens + $2 "
            "FROM json_to_recordset($1::json) AS r(k text, v text, w text, s bigint, e bigint) "
            "WHERE q.scope_kind = r.k AND q.scope_value = r.v AND q.window_id = r.w AND q.window_start = to_timestamp(r.s)",
            rows_json, estimated_input_tokens);
        transaction.commit();
        return true;
      });
    } catch (const pqxx::deadlock_detected&) {
      // NOTE: cannot happen between reservers (same lock order); kept for safety against
      // unforeseen lock orders (e.g. an operator's manual UPDATE).
      if (attempt >= kDeadlockRetries) throw;
    }
  }
}

void PgQuotaCounters::add(const std::vector<CounterKey>& keys, const CounterTotals& delta) {
  if (keys.empty()) return;
  pool_->run([&](pqxx::connection& connection) {
    // One transaction, rows updated in the key order reserve() locks them in, so settling never
    // deadlocks with reservers, and a retry after a cut connection cannot count twice.
    pqxx::work transaction(connection);
    for (const CounterKey& counter : keys) {
      transaction.exec_params(
          "UPDATE quota_counters SET requests = requests + $5, input_tokens = input_tokens + $6, "
          "output_tokens = output_tokens + $7, cost_microdollars = cost_microdollars + $8 "
          "WHERE scope_kind = $1 AND scope_value = $2 AND window_id = $3 AND window_start = to_timestamp($4)",
          counter.scope_kind, counter.scope_value, counter.window_id, secondsOf(counter.window_start), delta.requests,
          delta.input_tokens, delta.output_tokens, delta.cost_microdollars);
    }
    transaction.commit();
  });
}

size_t PgQuotaCounters::prune(TimePoint before) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    return query.exec_params("DELETE FROM quota_counters WHERE window_end < " + sql::timestampParam(1),
                             sql::micros(before))
        .affected_rows();
  });
}

std::vector<CounterRow> PgQuotaCounters::live(TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    const auto rows = query.exec_params(
        "SELECT scope_kind, scope_value, window_id, " + sql::microsOf("window_start") + ", " +
            sql::microsOf("window_end") +
            ", requests, input_tokens, output_tokens, cost_microdollars FROM quota_counters WHERE window_end > " +
            sql::timestampParam(1) + " ORDER BY scope_kind, scope_value, window_id, window_start",
        sql::micros(now));
    std::vector<CounterRow> counters;
    for (const auto& row : rows) {
      counters.push_back(CounterRow{
          CounterKey{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>(), sql::timeOf(row[3]),
                     sql::timeOf(row[4])},
          CounterTotals{row[5].as<int64_t>(), row[6].as<int64_t>(), row[7].as<int64_t>(), row[8].as<int64_t>()}});
    }
    return counters;
  });
}

}  // namespace sluice::store
