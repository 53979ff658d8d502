#include "server/responses/store.h"

#include <pqxx/pqxx>

#include "server/wire/json_parse.h"

namespace sluice::responses {

namespace {

Json parsed(const pqxx::field& field) { return wire::parseJsonText(field.c_str()); }

class PostgresLookup : public ItemLookup {
 public:
  PostgresLookup(std::shared_ptr<identity::ConnectionPool> pool, std::string owner, size_t max_items)
      : pool_(std::move(pool)), owner_(std::move(owner)), max_items_(max_items) {}

  std::optional<std::vector<Json>> history(const std::string& id) override {
    return pool_->run([&](pqxx::connection& connection) -> std::optional<std::vector<Json>> {
      pqxx::read_transaction query(connection);
      if (query.exec_params("SELECT 1 FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now()",
                            owner_, id)
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
          owner_, id, static_cast<long long>(max_items_));
      std::vector<Json> items;
      items.reserve(rows.size());
      for (const auto& row : rows) items.push_back(parsed(row[0]));
      return items;
    });
  }

  std::map<std::string, Json> items(const std::vector<std::string>& ids) override {
    return pool_->run([&](pqxx::connection& connection) {
      pqxx::read_transaction query(connection);
      // The newest stored copy of each id.
      const auto rows = query.exec_params(
          "SELECT DISTINCT ON (i.item_id) i.item_id, i.item::text FROM stored_response_items i"
          "  JOIN stored_responses r ON r.owner = i.owner AND r.id = i.response_id"
          " WHERE i.owner = $1 AND i.item_id IN (SELECT jsonb_array_elements_text($2::jsonb))"
          "   AND r.expires_at > now()"
          " ORDER BY i.item_id, r.created_at DESC",
          owner_, Json(ids).dump());
      std::map<std::string, Json> found;
      for (const auto& row : rows) found.emplace(row[0].c_str(), parsed(row[1]));
      return found;
    });
  }

 private:
  std::shared_ptr<identity::ConnectionPool> pool_;
  std::string owner_;
  size_t max_items_;
};

}  // namespace

Store::Store(std::shared_ptr<identity::ConnectionPool> pool, StoreOptions options)
    : pool_(std::move(pool)), options_(options) {}

std::unique_ptr<ItemLookup> Store::lookupFor(std::string owner) {
  return std::make_unique<PostgresLookup>(pool_, std::move(owner), options_.max_history_items);
}

Store::Saved Store::save(const std::string& owner, const Json& response,
                         const std::optional<std::string>& previous_response_id, const std::vector<Json>& input) {
  const std::string id = response.value("id", "");
  if (id.empty() || id.size() > kMaxIdBytes) return Saved::TooLarge;
  const std::string response_text = wire::dumpJsonText(response);
  const std::string input_text = wire::dumpJsonText(Json(input));
  const std::string output_text = wire::dumpJsonText(Json(outputItems(response)));
  const size_t size = response_text.size() + input_text.size();
  if (size > options_.max_bytes) return Saved::TooLarge;
  pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    // A retried id (a client replaying a response id) replaces what was kept under it.
    transaction.exec_params("DELETE FROM stored_responses WHERE owner = $1 AND id = $2", owner, id);
    transaction.exec_params(
        "INSERT INTO stored_responses (id, owner, previous_response_id, response, size_bytes, expires_at)"
        " VALUES ($1, $2, $3, $4::jsonb, $5, now() + make_interval(hours => $6))",
        id, owner, previous_response_id, response_text, static_cast<long long>(size),
        static_cast<int>(options_.retention.count()));
    for (const auto& [kind, items] : {std::pair<const char*, const std::string*>{"input", &input_text},
                                      std::pair<const char*, const std::string*>{"output", &output_text}}) {
      transaction.exec_params(
          "INSERT INTO stored_response_items (owner, response_id, kind, position, item_id, item)"
          " SELECT $1, $2, $3, (t.ord - 1)::int, CASE WHEN jsonb_typeof(t.e -> 'id') = 'string' THEN t.e ->> 'id' END, t.e"
          "   FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t(e, ord)",
          owner, id, std::string(kind), *items);
    }
    transaction.commit();
  });
  return Saved::Kept;
}

std::optional<Json> Store::get(const std::string& owner, const std::string& id) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<Json> {
    pqxx::read_transaction query(connection);
    const auto rows = query.exec_params(
        "SELECT response::text FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now()", owner, id);
    if (rows.empty()) return std::nullopt;
    return parsed(rows[0][0]);
  });
}

bool Store::remove(const std::string& owner, const std::string& id) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto rows = transaction.exec_params(
        "DELETE FROM stored_responses WHERE owner = $1 AND id = $2 AND expires_at > now() RETURNING 1", owner, id);
    transaction.commit();
    return !rows.empty();
  });
}

std::optional<InputPage> Store::inputItems(const std::string& owner, const std::string& id, bool ascending,
                                           size_t limit, const std::optional<std::string>& after) {
  return pool_->run([&](pqxx::connection& connection) -> std::optional<InputPage> {
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
    InputPage page;
    for (const auto& row : rows) {
      if (page.items.size() == limit) {
        page.has_more = true;
        break;
      }
      page.items.push_back(parsed(row[0]));
    }
    return page;
  });
}

size_t Store::purgeExpired() {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    const auto result = transaction.exec("DELETE FROM stored_responses WHERE expires_at <= now()");
    transaction.commit();
    return static_cast<size_t>(result.affected_rows());
  });
}

}  // namespace sluice::responses
