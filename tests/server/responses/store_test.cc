// responses::Store (saving, the chain behind previous_response_id, item references, input_items
// pages, owners, expiry) over in-memory items: tests/fakes/fake_response_items.h.
#include "server/responses/store.h"

#include <boost/test/unit_test.hpp>

#include "tests/fakes/fake_response_items.h"

using namespace sluice;
using namespace std::chrono;
using responses::Json;

namespace {

struct Fixture {
  std::shared_ptr<fakes::FakeResponseItems> items = std::make_shared<fakes::FakeResponseItems>();
  responses::Store store{items, responses::StoreOptions{}};

  Fixture() { items->setNow(system_clock::time_point(seconds(1'795'988'600))); }

  // Keeps a turn: `said` as input, answered by one message whose id is `id` + "_msg".
  void turn(const std::string& owner, const std::string& id, const std::string& said,
            std::optional<std::string> previous = std::nullopt) {
    const Json response = {{"id", id},
                           {"object", "response"},
                           {"output", Json::array({Json{{"id", id + "_msg"},
                                                        {"type", "message"},
                                                        {"role", "assistant"},
                                                        {"content", "answer to " + said}}})}};
    const std::vector<Json> input = {Json{{"id", id + "_in"}, {"role", "user"}, {"content", said}}};
    BOOST_REQUIRE((store.save(owner, id, response, previous, input) == responses::Store::Saved::Kept));
  }

  // The chain ending at `id`, as the member's lookup reads it; nullopt when there is none.
  std::optional<std::vector<Json>> history(const std::string& owner, const std::string& id) {
    auto read = store.lookupFor(owner)->inlined(id, {}, SIZE_MAX, [](size_t) { return true; });
    if (read.outcome != sluice::store::InlineOutcome::Read) return std::nullopt;
    return read.history;
  }
};

const auto kAnyRoom = [](size_t) { return true; };

std::vector<std::string> contents(const std::vector<Json>& items) {
  std::vector<std::string> out;
  for (const Json& item : items) out.push_back(item.value("content", ""));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(store)

BOOST_FIXTURE_TEST_CASE(a_chain_comes_back_oldest_turn_first_each_input_before_its_output, Fixture) {
  turn("alice", "resp_1", "otters");
  turn("alice", "resp_2", "beavers", "resp_1");
  turn("alice", "resp_3", "voles", "resp_2");
  const auto chain = history("alice", "resp_3");
  BOOST_REQUIRE(chain.has_value());
  BOOST_TEST(contents(*chain) == (std::vector<std::string>{"otters", "answer to otters", "beavers",
                                                             "answer to beavers", "voles", "answer to voles"}));
  // From the middle of the chain, the later turn is not part of it.
  BOOST_TEST(history("alice", "resp_2")->size() == 4u);
}

BOOST_FIXTURE_TEST_CASE(previous_response_id_expands_into_the_stored_turns, Fixture) {
  turn("alice", "resp_1", "otters");
  auto lookup = store.lookupFor("alice");
  const auto expanded =
      responses::expand(R"({"model":"m","previous_response_id":"resp_1","input":"and beavers?"})", *lookup);
  BOOST_REQUIRE(expanded.has_value());
  const Json body = Json::parse(expanded->body);
  BOOST_REQUIRE(body["input"].size() == 3u);
  BOOST_TEST(body["input"][0]["content"] == "otters");
  BOOST_TEST(body["input"][1]["content"] == "answer to otters");
  BOOST_TEST(body["input"][2]["content"] == "and beavers?");
}

BOOST_FIXTURE_TEST_CASE(another_members_responses_are_not_found, Fixture) {
  turn("alice", "resp_1", "otters");
  BOOST_TEST(!history("bob", "resp_1").has_value());
  BOOST_TEST(!store.get("bob", "resp_1").has_value());
  BOOST_TEST(!store.remove("bob", "resp_1"));
  BOOST_TEST((store.lookupFor("bob")->inlined(std::nullopt, {"resp_1_msg"}, SIZE_MAX, kAnyRoom).outcome ==
              sluice::store::InlineOutcome::ItemMissing));
  auto lookup = store.lookupFor("bob");
  const auto refused = responses::expand(R"({"model":"m","previous_response_id":"resp_1","input":"hi"})", *lookup);
  BOOST_TEST(!refused.has_value());
  BOOST_TEST(store.get("alice", "resp_1").value()["id"] == "resp_1");
}

BOOST_FIXTURE_TEST_CASE(an_item_reference_finds_the_newest_copy_of_the_item, Fixture) {
  turn("alice", "resp_1", "otters");
  turn("alice", "resp_2", "beavers");
  // resp_3 repeats resp_1's input item under the same id, with other content.
  const Json response = {{"id", "resp_3"}, {"output", Json::array()}};
  BOOST_REQUIRE((store.save("alice", "resp_3", response, std::nullopt,
                            {Json{{"id", "resp_1_in"}, {"role", "user"}, {"content", "otters again"}}}) ==
                 responses::Store::Saved::Kept));
  const auto missing = store.lookupFor("alice")->inlined(std::nullopt, {"resp_1_in", "nope"}, SIZE_MAX, kAnyRoom);
  BOOST_TEST((missing.outcome == sluice::store::InlineOutcome::ItemMissing));
  BOOST_TEST(missing.missing_item == "nope");
  const auto found = store.lookupFor("alice")->inlined(std::nullopt, {"resp_1_in", "resp_2_msg"}, SIZE_MAX, kAnyRoom).items;
  BOOST_TEST(found.size() == 2u);
  BOOST_TEST(found.at("resp_1_in")["content"] == "otters again");
  BOOST_TEST(found.at("resp_2_msg")["content"] == "answer to beavers");
}

BOOST_FIXTURE_TEST_CASE(input_items_page_both_ways_after_an_item, Fixture) {
  std::vector<Json> input;
  for (int i = 1; i <= 5; ++i) input.push_back(Json{{"id", "in_" + std::to_string(i)}, {"content", std::to_string(i)}});
  BOOST_REQUIRE((store.save("alice", "resp_p", Json{{"id", "resp_p"}, {"output", Json::array()}}, std::nullopt, input) ==
                 responses::Store::Saved::Kept));
  const auto first = store.inputItems("alice", "resp_p", true, 2, std::nullopt).value();
  BOOST_TEST(contents(first.items) == (std::vector<std::string>{"1", "2"}));
  BOOST_TEST(first.has_more);
  const auto next = store.inputItems("alice", "resp_p", true, 10, "in_2").value();
  BOOST_TEST(contents(next.items) == (std::vector<std::string>{"3", "4", "5"}));
  BOOST_TEST(!next.has_more);
  const auto newest = store.inputItems("alice", "resp_p", false, 2, "in_4").value();
  BOOST_TEST(contents(newest.items) == (std::vector<std::string>{"3", "2"}));
  BOOST_TEST(newest.has_more);
  // An unknown `after` starts at the edge.
  BOOST_TEST(store.inputItems("alice", "resp_p", false, 1, "in_9").value().items[0]["content"] == "5");
  BOOST_TEST(!store.inputItems("alice", "resp_none", true, 10, std::nullopt).has_value());
}

BOOST_FIXTURE_TEST_CASE(a_response_past_the_size_bound_or_without_an_id_is_not_kept, Fixture) {
  responses::StoreOptions options;
  options.max_bytes = 64;
  responses::Store small(items, options);
  const Json big = {{"id", "resp_big"}, {"output", Json::array()}, {"text", std::string(100, 'x')}};
  BOOST_TEST((small.save("alice", "resp_big", big, std::nullopt, {}) == responses::Store::Saved::TooLarge));
  BOOST_TEST((small.save("alice", "resp_x", Json{{"output", Json::array()}}, std::nullopt, {}) ==
              responses::Store::Saved::ForeignId));
  BOOST_TEST(items->responses() == 0u);
}

BOOST_FIXTURE_TEST_CASE(an_answer_carrying_a_providers_id_is_not_kept, Fixture) {
  const Json answer = {{"id", "resp_chosen_by_provider"}, {"object", "response"}, {"output", Json::array()}};
  BOOST_TEST((store.save("alice", "resp_gateway", answer, std::nullopt, {}) == responses::Store::Saved::ForeignId));
  BOOST_TEST(items->responses() == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_kept_id_is_never_replaced_and_remove_deletes_it, Fixture) {
  turn("alice", "resp_1", "otters");
  const Json again = {{"id", "resp_1"}, {"object", "response"}, {"output", Json::array()}};
  BOOST_TEST((store.save("alice", "resp_1", again, std::nullopt, {Json{{"content", "beavers"}}}) ==
              responses::Store::Saved::Refused));
  BOOST_TEST(contents(*history("alice", "resp_1")) == (std::vector<std::string>{"otters", "answer to otters"}));
  // Another member's responses are theirs: the same id is not the same response.
  turn("bob", "resp_1", "voles");
  BOOST_TEST(store.remove("alice", "resp_1"));
  BOOST_TEST(!store.remove("alice", "resp_1"));
  BOOST_TEST(!store.get("alice", "resp_1").has_value());
  BOOST_TEST(store.get("bob", "resp_1").has_value());
}

BOOST_FIXTURE_TEST_CASE(previous_response_id_links_never_close_a_loop, Fixture) {
  // A response naming itself, and one saved under an id a kept response already names as its
  // previous (the two ways a provider's repeated id used to make a loop), are refused.
  const Json self = {{"id", "resp_1"}, {"object", "response"}, {"output", Json::array()}};
  BOOST_TEST((store.save("alice", "resp_1", self, "resp_1", {}) == responses::Store::Saved::Refused));
  turn("alice", "resp_2", "beavers", "resp_0");  // its previous is gone (deleted, expired)
  const Json behind = {{"id", "resp_0"}, {"object", "response"}, {"output", Json::array()}};
  BOOST_TEST((store.save("alice", "resp_0", behind, "resp_2", {}) == responses::Store::Saved::Refused));
  BOOST_TEST(items->responses() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_loop_kept_before_loops_were_refused_is_walked_once, Fixture) {
  items->keepLinked("alice", "resp_a", "resp_b", R"({"content":"a"})");
  items->keepLinked("alice", "resp_b", "resp_a", R"({"content":"b"})");
  items->keepLinked("alice", "resp_self", "resp_self", R"({"content":"self"})");
  BOOST_TEST(contents(*history("alice", "resp_a")) == (std::vector<std::string>{"b", "a"}));
  BOOST_TEST(contents(*history("alice", "resp_self")) == (std::vector<std::string>{"self"}));
}

BOOST_FIXTURE_TEST_CASE(the_items_are_summed_before_they_are_read, Fixture) {
  turn("alice", "resp_1", std::string(1000, 'o'));
  auto lookup = store.lookupFor("alice");
  size_t charged = 0;
  const auto refused = lookup->inlined("resp_1", {}, 1000, [&](size_t bytes) {
    charged = bytes;
    return true;
  });
  BOOST_TEST((refused.outcome == sluice::store::InlineOutcome::TooLarge));
  BOOST_TEST(refused.bytes > 2000u);  // both items, summed
  BOOST_TEST(charged == 0u);          // never charged, never read
  BOOST_TEST(refused.history.empty());
  const auto no_room = lookup->inlined("resp_1", {}, SIZE_MAX, [](size_t) { return false; });
  BOOST_TEST((no_room.outcome == sluice::store::InlineOutcome::NoRoom));
  BOOST_TEST(items->inlineCalls().first == 2u);
  BOOST_TEST(items->inlineCalls().second == 0u);  // neither read anything
  const auto read = lookup->inlined("resp_1", {}, SIZE_MAX, [&](size_t bytes) {
    charged = bytes;
    return true;
  });
  BOOST_TEST((read.outcome == sluice::store::InlineOutcome::Read));
  BOOST_TEST(charged == refused.bytes);
  BOOST_TEST(read.history.size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(expired_responses_are_not_found_and_are_purged, Fixture) {
  turn("alice", "resp_1", "otters");
  items->setNow(system_clock::time_point(seconds(1'795'988'600)) + hours(24 * 29));
  turn("alice", "resp_2", "beavers", "resp_1");
  BOOST_TEST(history("alice", "resp_2")->size() == 4u);
  items->setNow(system_clock::time_point(seconds(1'795'988'600)) + hours(24 * 31));
  // resp_1 is past its 30 days: the chain stops at it.
  BOOST_TEST(contents(*history("alice", "resp_2")) ==
             (std::vector<std::string>{"beavers", "answer to beavers"}));
  BOOST_TEST(!store.get("alice", "resp_1").has_value());
  BOOST_TEST(store.purgeExpired() == 1u);
  BOOST_TEST(items->responses() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
