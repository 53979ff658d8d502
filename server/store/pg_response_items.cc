#include "server/store/pg_response_items.h"

#include <utility>

#include "server/store/sql_values.h"

namespace sluice::store {

PgResponseItems::PgResponseItems(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

std::optional<std::vector<std::string>> PgResponseItems::history(const std::string& owner, const std::string& id,
                                                                 size_t max_items) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<std::vector<std::string>> {
    pqxx::read_transaction query(connection);
    if (query.exec_params("SELECT 1 FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now()",
                          owner, id)
            .empty()) {
      return std::nullopt;
    }
    // The chain back through previous_response_id (1000 turns at most), oldest turn first, each
    // turn's input before its output.
    const auto rows = query.exec_params(
        "WITH RECURSIVE chain(id, previous, depth) AS ("
        "  SELECT id, previous_response_id, 0 FROM stored_responses"
        "   WHERE owner = $1 AND id = $2 AND expires_at > now()"
        "  UNION ALL"
        "  SELECT r.id, r.previous_response_id, c.depth + 1 FROM stored_responses r"
        "    JOIN chain c ON r.owner = $1 AND r.id = c.previous"
        "   WHERE c.depth < 1000 AND r.expires_at > now())"
        " SELECT i.item::text FROM chain c"
        "  JOIN stored_response_items i ON i.owner = $1 AND i.response_id = c.id"
        " ORDER BY c.depth DESC, i.kind ASC, i.position ASC LIMIT $3",
        owner, id, static_cast<long long>(max_items));
    std::vector<std::string> items;
    items.reserve(rows.size());
    for (const auto& row : rows) items.emplace_back(row[0].c_str());
    return items;
  });
}

std::map<std::string, std::string> PgResponseItems::items(const std::string& owner, const std::vector<std::string>& ids) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::read_transaction query(connection);
    // The newest stored copy of each id.
    const auto rows = query.exec_params(
        "SELECT DISTINCT ON (i.item_id) i.item_id, i.item::text FROM stored_response_items i"
        "  JOIN stored_responses r ON r.owner = i.owner AND r.id = i.response_id"
        " WHERE i.owner = $1 AND i.item_id IN (SELECT jsonb_array_elements_text($2::jsonb))"
        "   AND r.expires_at > now()"
        " ORDER BY i.item_id, r.created_at DESC",
        owner, sql::jsonArray(ids));
    std::map<std::string, std::string> found;
    for (const auto& row : rows) found.emplace(row[0].c_str(), row[1].c_str());
    return found;
  });
}

void PgResponseItems::save(const ResponseRecord& record, std::chrono::hours retention) {
  pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    // A retried id (a client replaying a response id) replaces what was kept under it.
    transaction.exec_params("DELETE FROM stored_responses WHERE owner = $1 AND id = $2", record.owner, record.id);
    transaction.exec_params(
        "INSERT INTO stored_responses (id, owner, previous_response_id, response, size_bytes, expires_at)"
        " VALUES ($1, $2, $3, $4::jsonb, $5, now() + make_interval(hours => $6))",
        record.id, record.owner, record.previous_response_id, record.response,
        static_cast<long long>(record.size_bytes), static_cast<int>(retention.count()));
    for (const auto& [kind, items] : {std::pair<const char*, const std::string*>{"input", &record.input},
                                      std::pair<const char*, const std::string*>{"output", &record.output}}) {
      transaction.exec_params(
          "INSERT INTO stored_response_items (owner, response_id, kind, position, item_id, item)"
          " SELECT $1, $2, $3, (t.ord - 1)::int, CASE WHEN jsonb_typeof(t.e -> 'id') = 'string' THEN t.e ->> 'id' END, t.e"
          "   FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t(e, ord)",
          record.owner, record.id, std::string(kind), *items);
    }
    transaction.commit();
  });
}

std::optional<std::string> PgResponseItems::response(const std::string& owner, const std::string& id) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<std::string> {
    pqxx::read_transaction query(connection);
    const auto rows = query.exec_params(
        "SELECT response::text FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now()", owner, id);
    if (rows.empty()) return std::nullopt;
    return std::string(rows[0][0].c_str());
  });
}

bool PgResponseItems::remove(const std::string& owner, const std::string& id) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto rows = transaction.exec_params(
        "DELETE FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now() RETURNING 1", owner, id);
    transaction.commit();
    return !rows.empty();
  });
}

std::optional<ItemPage> PgResponseItems::inputItems(const std::string& owner, const std::string& id, bool ascending,
                                                    size_t limit, const std::optional<std::string>& after) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<ItemPage> {
    pqxx::read_transaction query(connection);
    if (query.exec_params("SELECT 1 FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now()", owner, id)
            .empty()) {
      return std::nullopt;
    }
    // `after`: the position of that item in this response's input; unknown ids start at the edge.
    std::optional<long long> from;
    if (after) {
      const auto at = query.exec_params(
          "SELECT position FROM stored_response_items WHERE owner = $1 AND response_id = $2 AND kind = 'input'"
          " AND item_id = $3 ORDER BY position LIMIT 1",
          owner, id, *after);
      if (!at.empty()) from = at[0][0].as<long long>();
    }
    const std::string order = ascending ? "ASC" : "DESC";
    const std::string bound = !from ? "" : ascending ? " AND position > $3" : " AND position < $3";
    const std::string sql = "SELECT item::text FROM stored_response_items WHERE owner = $1 AND response_id = $2"
                            " AND kind = 'input'" + bound + " ORDER BY position " + order + " LIMIT " +
                            std::to_string(limit + 1);
    const auto rows = from ? query.exec_params(sql, owner, id, *from) : query.exec_params(sql, owner, id);
    ItemPage page;
    for (const auto& row : rows) {
      if (page.items.size() == limit) {
        page.has_more = true;
        break;
      }
      page.items.emplace_back(row[0].c_str());
    }
    return page;
  });
}

size_t PgResponseItems::purgeExpired() {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto result = transaction.exec("DELETE FROM stored_responses WHERE expires_at <= now()");
    transaction.commit();
    return static_cast<size_t>(result.affected_rows());
  });
}

}  // namespace sluice::store
