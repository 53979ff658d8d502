#include "tests/fakes/fake_response_items.h"

#include <algorithm>
#include <set>
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
                                                                   size_t max_items) const {
  const Kept* turn = live(owner, id);
  if (!turn) return std::nullopt;
  // Each response once, however its links loop.
  std::vector<const Kept*> chain{turn};
  std::set<std::string> seen{id};
  while (chain.size() <= kMaxTurnsBack && chain.back()->previous_response_id &&
         seen.insert(*chain.back()->previous_response_id).second) {
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

std::map<std::string, std::string> FakeResponseItems::newest(const std::string& owner,
                                                             const std::vector<std::string>& ids) const {
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

store::InlineRead FakeResponseItems::inlineItems(const store::InlineQuery& query,
                                                 const std::function<bool(size_t)>& charge) {
  std::lock_guard lock(mutex_);
  enter();
  ++inline_calls_;
  store::InlineRead read;
  std::vector<std::string> chain;
  if (query.previous_response_id) {
    auto found = history(query.owner, *query.previous_response_id, query.max_items);
    if (!found) {
      read.outcome = store::InlineOutcome::PreviousMissing;
      return read;
    }
    chain = std::move(*found);
    for (const std::string& text : chain) read.bytes += text.size();
  }
  auto items = newest(query.owner, query.item_ids);
  for (const std::string& id : query.item_ids) {
    const auto it = items.find(id);
    if (it == items.end()) {
      read.outcome = store::InlineOutcome::ItemMissing;
      read.missing_item = id;
      return read;
    }
    read.bytes += it->second.size();
  }
  if (read.bytes > query.max_bytes) {
    read.outcome = store::InlineOutcome::TooLarge;
    return read;
  }
  if (!charge(read.bytes)) {
    read.outcome = store::InlineOutcome::NoRoom;
    return read;
  }
  ++inline_reads_;
  read.history = std::move(chain);
  read.items = std::move(items);
  return read;
}

bool FakeResponseItems::save(const store::ResponseRecord& record, std::chrono::hours retention) {
  std::lock_guard lock(mutex_);
  enter();
  if (record.previous_response_id == record.id || kept_.contains(Key{record.owner, record.id})) return false;
  for (const auto& [key, turn] : kept_) {
    if (key.first == record.owner && turn.previous_response_id == record.id) return false;
  }
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
  return true;
}

void FakeResponseItems::keepLinked(const std::string& owner, const std::string& id, const std::string& previous,
                                   const std::string& item_json) {
  std::lock_guard lock(mutex_);
  Kept turn;
  turn.previous_response_id = previous;
  turn.response = R"({"id":")" + id + R"("})";
  turn.input.push_back(Item{std::nullopt, item_json});
  turn.expires_at = now() + std::chrono::hours(24);
  turn.saved = ++saves_;
  kept_[Key{owner, id}] = std::move(turn);
}

std::pair<size_t, size_t> FakeResponseItems::inlineCalls() const {
  std::lock_guard lock(mutex_);
  return {inline_calls_, inline_reads_};
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
