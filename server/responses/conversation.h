#pragma once
// The gateway as the Responses API's store, the pure part: turning a request that points at stored
// state (`previous_response_id`, `item_reference` input items) into one that carries the items
// themselves, so any provider on any wire can serve it and a failover loses nothing; and reading
// back, from what the client was sent, the response object to keep.
//
//   Expansion expanded = expand(body, &lookup);      // lookup: the member's stored items
//   ... serve expanded.body ...
//   capture.bytes(...)  (as a BodyTap on the client's response) -> capture.response()
//
// Pure: the store is reached through ItemLookup; the caller passes the bytes.

#include <cstddef>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/store/response_items.h"
#include "server/util/body_tap.h"
#include "server/wire/api_error.h"
#include "server/wire/ir.h"
#include "server/wire/sse.h"

namespace sluice::responses {

using Json = wire::Json;

// What a turn inlines from the store (ItemLookup::inlined): the outcome, and when it is Read, the
// items.
struct Inlined {
  store::InlineOutcome outcome = store::InlineOutcome::Read;
  std::string missing_item;           // ItemMissing: the first id without an item
  size_t bytes = 0;                   // what the items sum to, known before any was read
  std::vector<Json> history;          // the chain behind previous_response_id
  std::map<std::string, Json> items;  // by id
};

// What the store holds for one member.
class ItemLookup {
 public:
  virtual ~ItemLookup() = default;
  // The conversation up to and including response `previous_response_id` (when given): each
  // turn's input items then its output items, oldest turn first; and the items with these ids
  // (input or output items of the member's stored responses; distinct ids). The store sums their
  // bytes first and reads them only when every one is there, the sum is within `max_bytes` and
  // `charge(sum)` agrees (store::ResponseItems::inlineItems).
  virtual Inlined inlined(const std::optional<std::string>& previous_response_id,
                          const std::vector<std::string>& item_ids, size_t max_bytes,
                          const std::function<bool(size_t)>& charge) = 0;
};

// Bounds on what a request may pull in.
inline constexpr size_t kMaxReferences = 1000;     // item_reference items in one request
inline constexpr size_t kMaxIdBytes = 256;         // a response or item id

// What an expansion may take.
struct ExpandBounds {
  // The body served, the stored items with the client's own body: refused (413) above it, summed
  // by the store before anything is read (--max-body-bytes).
  size_t max_body_bytes = 32u << 20;
  // Takes room for the stored bytes about to be read (the process body budget); false: 503.
  std::function<bool(size_t)> charge = [](size_t) { return true; };
};

struct Expansion {
  std::string body;                  // the body to serve: stateless, the store's items inlined
  std::vector<Json> input;           // this turn's own input items, references resolved (to store)
  std::optional<std::string> previous_response_id;
  bool store = true;                 // the client asked for the response to be kept (store not false)
};

// True when the body may point at stored state or ask to be stored: the cheap test before
// expand() parses it. `store_false`: the body's top-level `store` is the literal false, as the
// request's member scan read it (a `store` nested anywhere else says nothing). A Responses body
// without a top-level "store":false is stored.
bool mayUseStore(std::string_view body, bool store_false);

// The id the gateway shows a Responses client for the answer to request `request_id`, and keeps it
// under: minted by the gateway (as the translating encoders mint it), never a provider's.
std::string responseIdFor(std::string_view request_id);

// Resolves `previous_response_id` and `item_reference` items against `lookup`, bounded before it
// copies: an item referenced twice is refused (400, as OpenAI refuses a duplicate item), and the
// stored items are summed by the store and refused above `bounds` (413), or when the body budget
// has no room for them (503), before any is read. The body served
// asks the provider not to keep state (`store: false`) and to return reasoning encrypted
// (`include: ["reasoning.encrypted_content"]`), so every later turn can be resent anywhere. A
// missing response or item is refused as OpenAI does (400 invalid_request naming it). Inlined items
// lose their `id` except reasoning items (an id of one provider's store means nothing to another).
std::expected<Expansion, wire::ApiError> expand(std::string_view body, ItemLookup& lookup,
                                                const ExpandBounds& bounds = {});

// The response object a Responses client was sent, read from the bytes of its answer: the JSON
// body, or the `response` of a streamed `response.completed` event. At most `max_bytes` are
// looked at: beyond, nothing is kept (too large to store).
class ResponseCapture : public util::BodyTap {
 public:
  ResponseCapture(bool streaming, size_t max_bytes) : streaming_(streaming), max_bytes_(max_bytes) {}
  void bytes(std::string_view data) override;
  // The completed response object, when one was seen whole; nullopt otherwise (an error, a broken
  // stream, too large).
  std::optional<Json> response();
  bool tooLarge() const { return too_large_; }

 private:
  bool streaming_;
  size_t max_bytes_;
  size_t seen_ = 0;
  bool too_large_ = false;
  std::string body_;  // not streaming
  wire::SseParser parser_;
  std::optional<Json> completed_;
};

// The stored object's `output` items, and the id each item carries ("" when none).
std::vector<Json> outputItems(const Json& response);
std::string itemId(const Json& item);

}  // namespace sluice::responses
