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

  std::optional<std::vector<Json>> history(const std::string& id) override {
    auto texts = items_->history(owner_, id, max_items_);
    if (!texts) return std::nullopt;
    return parsedAll(*texts);
  }

  std::map<std::string, Json> items(const std::vector<std::string>& ids) override {
    std::map<std::string, Json> found;
    for (const auto& [id, text] : items_->items(owner_, ids)) found.emplace(id, parsed(text));
    return found;
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

Store::Saved Store::save(const std::string& owner, const Json& response,
                         const std::optional<std::string>& previous_response_id, const std::vector<Json>& input) {
  store::ResponseRecord record;
  record.id = response.value("id", "");
  if (record.id.empty() || record.id.size() > kMaxIdBytes) return Saved::TooLarge;
  record.owner = owner;
  record.previous_response_id = previous_response_id;
  record.response = wire::dumpJsonText(response);
  record.input = wire::dumpJsonText(Json(input));
  record.output = wire::dumpJsonText(Json(outputItems(response)));
  record.size_bytes = record.response.size() + record.input.size();
  if (record.size_bytes > options_.max_bytes) return Saved::TooLarge;
  items_->save(record, options_.retention);
  return Saved::Kept;
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
