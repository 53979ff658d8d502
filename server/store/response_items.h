#pragma once
// Stored Responses-API responses and their items, by owner (the member who created them), shared
// by every replica. Items and responses cross as JSON text; parsing them, the size bound and
// which items are a response's output are responses::Store's (server/responses/store.h).
//
// A response is live until `retention` after it was saved: reads see live responses only,
// purgeExpired() deletes the others (their items go with them).
//
// Implementations: PgResponseItems (migrations/0004_responses.sql),
// tests/fakes/fake_response_items.h. Thread-safe. Environment failures throw.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sluice::store {

struct ResponseRecord {
  std::string id;
  std::string owner;
  std::optional<std::string> previous_response_id;
  std::string response;  // the response object, JSON
  std::string input;     // this turn's input items, a JSON array
  std::string output;    // the response's output items, a JSON array
  size_t size_bytes = 0;
};

struct ItemPage {
  std::vector<std::string> items;  // JSON
  bool has_more = false;
};

class ResponseItems {
 public:
  virtual ~ResponseItems() = default;

  // The items of the chain of live responses ending at `id`, back through previous_response_id
  // (1000 turns at most): oldest turn first, each turn's input items (in order) before its output
  // items, at most `max_items`. nullopt when `owner` has no live response `id`.
  virtual std::optional<std::vector<std::string>> history(const std::string& owner, const std::string& id,
                                                          size_t max_items) = 0;
  // By item id, the newest stored copy among `owner`'s live responses; ids without one are absent.
  virtual std::map<std::string, std::string> items(const std::string& owner, const std::vector<std::string>& ids) = 0;

  // Keeps `record` (replacing a response kept under the same owner and id) with its items, live
  // for `retention`. An item's id is its "id" member when that is a string.
  virtual void save(const ResponseRecord& record, std::chrono::hours retention) = 0;
  // The live response object.
  virtual std::optional<std::string> response(const std::string& owner, const std::string& id) = 0;
  // Deletes a live response; true when there was one.
  virtual bool remove(const std::string& owner, const std::string& id) = 0;
  // The response's own input items, ascending or newest first, after the input item with id
  // `after` when there is one (an unknown id starts at the edge), at most `limit`; nullopt when
  // `owner` has no live response `id`.
  virtual std::optional<ItemPage> inputItems(const std::string& owner, const std::string& id, bool ascending,
                                             size_t limit, const std::optional<std::string>& after) = 0;
  // Deletes expired responses; returns how many.
  virtual size_t purgeExpired() = 0;
};

}  // namespace sluice::store
