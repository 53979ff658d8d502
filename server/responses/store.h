#pragma once
// The gateway's store of Responses-API responses, kept in store::ResponseItems (PostgreSQL in the
// server, migrations/0004_responses.sql), so that every replica, and a replica after a restart,
// can continue a conversation:
// `previous_response_id`, `item_reference`, GET/DELETE /v1/responses/{id} and its input_items.
//
// Every response belongs to the member who created it (its owner); another member's id is not
// found. Rows expire after `retention` (the reads ignore expired rows at once; purgeExpired()
// deletes them). A response whose stored form would pass `max_bytes` is not kept. Ids are the
// gateway's (responseIdFor), never a provider's; a kept id is never replaced, and the
// previous_response_id links never loop.
//
// Thread-safe (the items are); each call is one short transaction. Throws what the items throw
// (pqxx errors, store::PoolExhausted) when the database fails.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/responses/conversation.h"
#include "server/store/response_items.h"

namespace sluice::responses {

struct StoreOptions {
  std::chrono::hours retention{24 * 30};  // like OpenAI's 30 days
  size_t max_bytes = 16u << 20;           // one response's stored form: its input and its output
  size_t max_history_items = 10000;       // items a previous_response_id chain may bring back
};

struct InputPage {
  std::vector<Json> items;
  bool has_more = false;
};

class Store {
 public:
  Store(std::shared_ptr<store::ResponseItems> items, StoreOptions options);

  const StoreOptions& options() const { return options_; }

  // The member's items, for expand().
  std::unique_ptr<ItemLookup> lookupFor(std::string owner);

  enum class Saved {
    Kept,
    TooLarge,   // its stored form passes max_bytes
    ForeignId,  // the response does not carry `id` (a provider's id reached the client)
    Refused,    // the store refused it: `id` is kept already, or keeping it would close a loop
  };
  // Keeps `response` (the object the client was sent) under `id`, the id the gateway minted for
  // the turn (responseIdFor), with this turn's input items. Never replaces a kept response.
  Saved save(const std::string& owner, const std::string& id, const Json& response,
             const std::optional<std::string>& previous_response_id, const std::vector<Json>& input);

  std::optional<Json> get(const std::string& owner, const std::string& id);
  // True when there was such a response.
  bool remove(const std::string& owner, const std::string& id);
  // The response's own input items, in `ascending` order or newest first, after the item with
  // id `after` when given, at most `limit`; nullopt when there is no such response.
  std::optional<InputPage> inputItems(const std::string& owner, const std::string& id, bool ascending, size_t limit,
                                      const std::optional<std::string>& after);

  // Deletes expired responses (their items go with them); returns how many.
  size_t purgeExpired();

 private:
  std::shared_ptr<store::ResponseItems> items_;
  StoreOptions options_;
};

}  // namespace sluice::responses
