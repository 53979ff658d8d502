#include "tests/fakes/fake_response_items.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace sluice::fakes {

namespace {

constexpr int kMaxTurnsBack = 1000;

std::vector<std::string> splitItems(const std::string& array_text, std::vector<std::optional<std::string>>* ids) {
  std::vector<std::string> texts;
  for (const auto& element : nlohmann::json::parse(array_text)) {
    texts.push_back(element.dump());
    const auto id = element.is_object() ? element.find("id") : element.end();
    ids->push_back(element.is_object() && id != element.end() && id->is_string() ? std::optional(id->get<std::string>())
                                                                                : std::nullopt);
  }
  return texts;
}

}  // namespace

void FakeResponseItems::enter() const {
  if (failing_) throw std::runtime_error("database unreachable");
}

FakeResponseItems::Clock::time_point FakeResponseItems::now() const { return now_.value_or(Clock::now()); }

const FakeResponseItems::Kept* FakeResponseItems::live(const std::string& owner, const std::string& id) const {
  const auto found = kept_.find(Key{owner, id});
  if (found == kept_.end() || found->second.expires_at <= now()) return nullptr;
  return &found->second;
}

std::optional<std::vector<std::string>> FakeResponseItems::history(const std::string& owner, const std::string& id,
                                                                   size_t max_items) {
  std::lock_guard lock(mutex_);
  enter();
  const Kept* turn = live(owner, id);
  if (!turn) return std::nullopt;
  std::vector<const Kept*> chain{turn};
  while (chain.size() <= kMaxTurnsBack && chain.back()->previous_response_id) {
    const Kept* previous = live(owner, *chain.back()->previous_response_id);
    if (!previous) break;
    chain.push_back(previous);
  }
  std::vector<std::string> items;
  for (auto at = chain.rbegin(); at != chain.rend(); ++at) {
    for (const auto* part : {&(*at)->input, &(*at)->output}) {
      for (const Item& item : *part) {
        if (items.size() == max_items) return items;
        items.push_back(item.text);
      }
    }
  }
  return items;
}

std::map<std::string, std::string> FakeResponseItems::items(const std::string& owner,
                                                            const std::vector<std::string>& ids) {
  std::lock_guard lock(mutex_);
  enter();
  std::map<std::string, std::pair<uint64_t, std::string>> newest;
  for (const auto& [key, turn] : kept_) {
    if (key.first != owner || !live(owner, key.second)) continue;
    for (const auto* part : {&turn.input, &turn.output}) {
      for (const Item& item : *part) {
        if (!item.id || std::find(ids.begin(), ids.end(), *item.id) == ids.end()) continue;
        auto& slot = newest[*item.id];
        if (slot.second.empty() || turn.saved > slot.first) slot = {turn.saved, item.text};
      }
    }
  }
  std::map<std::string, std::string> found;
  for (auto& [item_id, copy] : newest) found.emplace(item_id, std::move(copy.second));
  return found;
}

void FakeResponseItems::save(const store::ResponseRecord& record, std::chrono::hours retention) {
  std::lock_guard lock(mutex_);
  enter();
  Kept turn;
  turn.previous_response_id = record.previous_response_id;
  turn.response = record.response;
  for (auto [array, part] : {std::pair{&record.input, &turn.input}, std::pair{&record.output, &turn.output}}) {
    std::vector<std::optional<std::string>> ids;
    const auto texts = splitItems(*array, &ids);
    for (size_t i = 0; i < texts.size(); ++i) part->push_back(Item{ids[i], texts[i]});
  }
  turn.expires_at = now() + retention;
  turn.saved = ++saves_;
  kept_[Key{record.owner, record.id}] = std::move(turn);
}

std::optional<std::string> FakeResponseItems::response(const std::string& owner, const std::string& id) {
  std::lock_guard lock(mutex_);
  enter();
  const Kept* turn = live(owner, id);
  if (!turn) return std::nullopt;
  return turn->response;
}

bool FakeResponseItems::remove(const std::string& owner, const std::string& id) {
  std::lock_guard lock(mutex_);
  enter();
  if (!live(owner, id)) return false;
  kept_.erase(Key{owner, id});
  return true;
}

std::optional<store::ItemPage> FakeResponseItems::inputItems(const std::string& owner, const std::string& id,
                                                             bool ascending, size_t limit,
                                                             const std::optional<std::string>& after) {
  std::lock_guard lock(mutex_);
  enter();
  const Kept* turn = live(owner, id);
  if (!turn) return std::nullopt;
  const auto& input = turn->input;
  std::optional<size_t> from;
  if (after) {
    for (size_t i = 0; i < input.size() && !from; ++i) {
      if (input[i].id == *after) from = i;
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < input.size(); ++i) {
    if (!from || (ascending ? i > *from : i < *from)) order.push_back(i);
  }
  if (!ascending) std::reverse(order.begin(), order.end());
  store::ItemPage page;
  for (const size_t i : order) {
    if (page.items.size() == limit) {
      page.has_more = true;
      break;
    }
    page.items.push_back(input[i].text);
  }
  return page;
}

size_t FakeResponseItems::purgeExpired() {
  std::lock_guard lock(mutex_);
  enter();
  const auto at = now();
  return std::erase_if(kept_, [&](const auto& entry) { return entry.second.expires_at <= at; });
}

void FakeResponseItems::setNow(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  now_ = now;
}

size_t FakeResponseItems::responses() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

void FakeResponseItems::setFailing(bool failing) {
  std::lock_guard lock(mutex_);
  failing_ = failing;
}

}  // namespace sluice::fakes
