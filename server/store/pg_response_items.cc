#include "server/store/pg_response_items.h"

#include <string>
#include <utility>

#include "server/store/sql_values.h"

namespace sluice::store {

namespace {

// The live chain ending at $2 among owner $1's responses, back through previous_response_id: 1000
// turns at most, and a response met again (links that loop, kept before loops were refused) ends
// the walk instead of repeating it. `turn_items`: its items, oldest turn first, at most $3.
constexpr const char* kChainItems =
    "WITH RECURSIVE chain(id, previous, depth) AS ("
    "  SELECT id, previous_response_id, 0 FROM stored_responses"
    "   WHERE owner = $1 AND id = $2 AND expires_at > now()"
    "  UNION ALL"
    "  SELECT r.id, r.previous_response_id, c.depth + 1 FROM stored_responses r"
    "    JOIN chain c ON r.owner = $1 AND r.id = c.previous"
    "   WHERE c.depth < 1000 AND r.expires_at > now()"
    ") CYCLE id SET looped USING path,"
    " turn_items AS ("
    "  SELECT c.depth, i.kind, i.position, i.item FROM chain c"
    "    JOIN stored_response_items i ON i.owner = $1 AND i.response_id = c.id"
    "   WHERE NOT c.looped ORDER BY c.depth DESC, i.kind ASC, i.position ASC LIMIT $3)";

// The newest live copy of each item id in the JSON array $2, among owner $1's responses.
constexpr const char* kNewestItems =
    "SELECT DISTINCT ON (i.item_id) i.item_id, i.item FROM stored_response_items i"
    "  JOIN stored_responses r ON r.owner = i.owner AND r.id = i.response_id"
    " WHERE i.owner = $1 AND i.item_id IN (SELECT jsonb_array_elements_text($2::jsonb))"
    "   AND r.expires_at > now()"
    " ORDER BY i.item_id, r.created_at DESC, i.response_id DESC, i.kind ASC, i.position ASC";

// The sum and the read see the same rows.
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

}  // namespace

PgResponseItems::PgResponseItems(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

InlineRead PgResponseItems::inlineItems(const InlineQuery& query, const std::function<bool(size_t)>& charge) {
  return pool_->run([&](pqxx::connection& connection) {
    Snapshot snapshot(connection);
    InlineRead read;
    const std::string chain_id = query.previous_response_id.value_or("");
    const auto max_items = static_cast<long long>(query.max_items);
    // First the sizes, as PostgreSQL prints the items (what a read would carry).
    if (query.previous_response_id) {
      const auto row = snapshot.exec_params1(
          std::string(kChainItems) +
              " SELECT (SELECT count(*) FROM chain),"
              "        (SELECT coalesce(sum(octet_length(item::text)), 0) FROM turn_items)",
          query.owner, chain_id, max_items);
      if (row[0].as<long long>() == 0) {
        read.outcome = InlineOutcome::PreviousMissing;
        return read;
      }
      read.bytes += row[1].as<size_t>();
    }
    const std::string ids = sql::jsonArray(query.item_ids);
    if (!query.item_ids.empty()) {
      std::map<std::string, size_t> sizes;
      for (const auto& row : snapshot.exec_params(
               "SELECT n.item_id, octet_length(n.item::text) FROM (" + std::string(kNewestItems) + ") n",
               query.owner, ids)) {
        sizes.emplace(row[0].c_str(), row[1].as<size_t>());
      }
      for (const std::string& id : query.item_ids) {
        const auto it = sizes.find(id);
        if (it == sizes.end()) {
          read.outcome = InlineOutcome::ItemMissing;
          read.missing_item = id;
          return read;
        }
        read.bytes += it->second;
      }
    }
    if (read.bytes > query.max_bytes) {
      read.outcome = InlineOutcome::TooLarge;
      return read;
    }
    if (!charge(read.bytes)) {
      read.outcome = InlineOutcome::NoRoom;
      return read;
    }
    // Then the items themselves, in the same snapshot.
    if (query.previous_response_id) {
      const auto rows = snapshot.exec_params(
          std::string(kChainItems) + " SELECT item::text FROM turn_items ORDER BY depth DESC, kind ASC, position ASC",
          query.owner, chain_id, max_items);
      read.history.reserve(rows.size());
      for (const auto& row : rows) read.history.emplace_back(row[0].c_str());
    }
    if (!query.item_ids.empty()) {
      for (const auto& row : snapshot.exec_params(
               "SELECT n.item_id, n.item::text FROM (" + std::string(kNewestItems) + ") n", query.owner, ids)) {
        read.items.emplace(row[0].c_str(), row[1].c_str());
      }
    }
    return read;
  });
}

bool PgResponseItems::save(const ResponseRecord& record, std::chrono::hours retention) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::work transaction(connection);
    // Never over a kept id, never under an id a kept response names as its previous, never its
    // own previous: a stored id keeps what it named, and the links cannot close a loop.
    const auto kept = transaction.exec_params(
        "INSERT INTO stored_responses (id, owner, previous_response_id, response, size_bytes, expires_at)"
        " SELECT $1, $2, $3, $4::jsonb, $5, now() + make_interval(hours => $6)"
        "  WHERE $3::text IS DISTINCT FROM $1::text"
        "    AND NOT EXISTS (SELECT 1 FROM stored_responses WHERE owner = $2 AND previous_response_id = $1)"
        " ON CONFLICT (owner, id) DO NOTHING RETURNING 1",
        record.id, record.owner, record.previous_response_id, record.response,
        static_cast<long long>(record.size_bytes), static_cast<int>(retention.count()));
    if (kept.empty()) return false;
    for (const auto& [kind, items] : {std::pair<const char*, const std::string*>{"input", &record.input},
                                      std::pair<const char*, const std::string*>{"output", &record.output}}) {
      transaction.exec_params(
          "INSERT INTO stored_response_items (owner, response_id, kind, position, item_id, item)"
          " SELECT $1, $2, $3, (t.ord - 1)::int, CASE WHEN jsonb_typeof(t.e -> 'id') = 'string' THEN t.e ->> 'id' END, t.e"
          "   FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t(e, ord)",
          record.owner, record.id, std::string(kind), *items);
    }
    transaction.commit();
    return true;
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
