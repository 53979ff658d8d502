#include "server/responses/store.h"

#include "server/wire/json_parse.h"

namespace sluice::responses {

namespace {

Json parsed(const std::string& text) { return wire::parseJsonText(text); }

std::vector<Json> parsedAll(const std::vector<std::string>& texts) {
  std::vector<Json> items;
  items.reserve(texts.size());
  for (const std::string& text : texts) items.push_back(parsed(text));
  return items;
}

class StoredLookup : public ItemLookup {
 public:
  StoredLookup(std::shared_ptr<store::ResponseItems> items, std::string owner, size_t max_items)
      : items_(std::move(items)), owner_(std::move(owner)), max_items_(max_items) {}

  Inlined inlined(const std::optional<std::string>& previous_response_id, const std::vector<std::string>& item_ids,
                  size_t max_bytes, const std::function<bool(size_t)>& charge) override {
    store::InlineQuery query;
    query.owner = owner_;
    query.previous_response_id = previous_response_id;
    query.item_ids = item_ids;
    query.max_items = max_items_;
    query.max_bytes = max_bytes;
    store::InlineRead read = items_->inlineItems(query, charge);
    Inlined out;
    out.outcome = read.outcome;
    out.missing_item = std::move(read.missing_item);
    out.bytes = read.bytes;
    out.history = parsedAll(read.history);
    for (const auto& [id, text] : read.items) out.items.emplace(id, parsed(text));
    return out;
  }

 private:
  std::shared_ptr<store::ResponseItems> items_;
  std::string owner_;
  size_t max_items_;
};

}  // namespace

Store::Store(std::shared_ptr<store::ResponseItems> items, StoreOptions options)
    : items_(std::move(items)), options_(options) {}

std::unique_ptr<ItemLookup> Store::lookupFor(std::string owner) {
  return std::make_unique<StoredLookup>(items_, std::move(owner), options_.max_history_items);
}

Store::Saved Store::save(const std::string& owner, const std::string& id, const Json& response,
                         const std::optional<std::string>& previous_response_id, const std::vector<Json>& input) {
  // The client was shown the gateway's id; an answer carrying another (a provider's) is not kept.
  if (id.empty() || id.size() > kMaxIdBytes || response.value("id", "") != id) return Saved::ForeignId;
  store::ResponseRecord record;
  record.id = id;
  record.owner = owner;
  record.previous_response_id = previous_response_id;
  record.response = wire::dumpJsonText(response);
  record.input = wire::dumpJsonText(Json(input));
  record.output = wire::dumpJsonText(Json(outputItems(response)));
  record.size_bytes = record.response.size() + record.input.size();
  if (record.size_bytes > options_.max_bytes) return Saved::TooLarge;
  return items_->save(record, options_.retention) ? Saved::Kept : Saved::Refused;
}

std::optional<Json> Store::get(const std::string& owner, const std::string& id) {
  auto text = items_->response(owner, id);
  if (!text) return std::nullopt;
  return parsed(*text);
}

bool Store::remove(const std::string& owner, const std::string& id) { return items_->remove(owner, id); }

std::optional<InputPage> Store::inputItems(const std::string& owner, const std::string& id, bool ascending,
                                           size_t limit, const std::optional<std::string>& after) {
  auto stored = items_->inputItems(owner, id, ascending, limit, after);
  if (!stored) return std::nullopt;
  InputPage page;
  page.items = parsedAll(stored->items);
  page.has_more = stored->has_more;
  return page;
}

size_t Store::purgeExpired() { return items_->purgeExpired(); }

}  // namespace sluice::responses
