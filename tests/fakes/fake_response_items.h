#pragma once
// ResponseItems in memory, with PgResponseItems' contract: responses belong to an owner, are live
// until their retention has passed on the fake's clock, a chain is followed back through
// previous_response_id among the owner's live responses (1000 turns at most, each response once),
// an item's id is its "id" member when that is a string, the newest response's copy of an item
// wins, items are summed (their text's bytes) before they are read, and a save never replaces an
// id nor closes a loop.
//
// For tests: a settable clock, how many responses are kept, and a switch that makes every call
// throw as an unreachable database would. Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "server/store/response_items.h"

namespace sluice::fakes {

class FakeResponseItems : public store::ResponseItems {
 public:
  using Clock = std::chrono::system_clock;

  store::InlineRead inlineItems(const store::InlineQuery& query, const std::function<bool(size_t)>& charge) override;
  bool save(const store::ResponseRecord& record, std::chrono::hours retention) override;
  std::optional<std::string> response(const std::string& owner, const std::string& id) override;
  bool remove(const std::string& owner, const std::string& id) override;
  std::optional<store::ItemPage> inputItems(const std::string& owner, const std::string& id, bool ascending,
                                            size_t limit, const std::optional<std::string>& after) override;
  size_t purgeExpired() override;

  // The fake's now (the system clock's until set).
  void setNow(Clock::time_point now);
  size_t responses() const;  // kept, expired ones included until purged
  void setFailing(bool failing);
  // Keeps a response whose link is whatever it is told, loops included (as rows kept before
  // save() refused them may be), with one input item.
  void keepLinked(const std::string& owner, const std::string& id, const std::string& previous,
                  const std::string& item_json);
  // How many inlineItems() calls there were, and how many of them read the items.
  std::pair<size_t, size_t> inlineCalls() const;

 private:
  struct Item {
    std::optional<std::string> id;
    std::string text;
  };
  struct Kept {
    std::optional<std::string> previous_response_id;
    std::string response;
    std::vector<Item> input;
    std::vector<Item> output;
    Clock::time_point expires_at;
    uint64_t saved = 0;  // order of saving: the newest copy of an item wins
  };
  using Key = std::pair<std::string, std::string>;  // owner, id
  const Kept* live(const std::string& owner, const std::string& id) const;  // under mutex_
  std::optional<std::vector<std::string>> history(const std::string& owner, const std::string& id,
                                                  size_t max_items) const;  // under mutex_
  std::map<std::string, std::string> newest(const std::string& owner,
                                            const std::vector<std::string>& ids) const;  // under mutex_
  Clock::time_point now() const;                                           // under mutex_
  void enter() const;                                                      // under mutex_

  mutable std::mutex mutex_;
  std::map<Key, Kept> kept_;
  std::optional<Clock::time_point> now_;
  uint64_t saves_ = 0;
  size_t inline_calls_ = 0;
  size_t inline_reads_ = 0;
  bool failing_ = false;
};

}  // namespace sluice::fakes
