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
#include <functional>
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

// What a turn asks to have inlined: the chain ending at `previous_response_id`, and the newest
// copies of `item_ids` (distinct ids).
struct InlineQuery {
  std::string owner;
  std::optional<std::string> previous_response_id;
  std::vector<std::string> item_ids;
  size_t max_items = 10000;  // of the chain, oldest first (the rest is left out)
  size_t max_bytes = 0;      // the most that may be read, items summed as the store prints them
};

enum class InlineOutcome {
  Read,             // every item read
  PreviousMissing,  // no live response previous_response_id: nothing read
  ItemMissing,      // an item id has no live item (InlineRead::missing_item): nothing read
  TooLarge,         // the items sum to more than max_bytes: nothing read
  NoRoom,           // the caller's charge refused the sum: nothing read
};

struct InlineRead {
  InlineOutcome outcome = InlineOutcome::Read;
  std::string missing_item;                   // ItemMissing: the first of item_ids without an item
  size_t bytes = 0;                           // the sum, known before anything was read
  std::vector<std::string> history;           // Read: the chain's items, JSON, as history() orders them
  std::map<std::string, std::string> items;   // Read: by id, JSON
};

struct ItemPage {
  std::vector<std::string> items;  // JSON
  bool has_more = false;
};

class ResponseItems {
 public:
  virtual ~ResponseItems() = default;

  // What a turn inlines, bounded before it is read: the chain of `owner`'s live responses ending
  // at query.previous_response_id, back through previous_response_id (1000 turns at most, each
  // response once however its links loop): oldest turn first, each turn's input items (in order)
  // before its output items, at most query.max_items; and by item id, the newest stored copy among
  // `owner`'s live responses. The items' bytes are summed in the store first; only when every one
  // is there, the sum is within query.max_bytes and `charge(sum)` agrees are they read, all in the
  // snapshot the sum was taken in.
  virtual InlineRead inlineItems(const InlineQuery& query, const std::function<bool(size_t)>& charge) = 0;

  // Keeps `record` with its items, live for `retention`, unless `owner` already has a response
  // under that id (expired or not), or one whose previous_response_id names it, or the record
  // names itself as its previous: then nothing changes and false is returned. So a stored id is
  // never replaced and the previous_response_id links never close a loop. An item's id is its
  // "id" member when that is a string.
  virtual bool save(const ResponseRecord& record, std::chrono::hours retention) = 0;
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
