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
    BOOST_REQUIRE((store.save(owner, response, previous, input) == responses::Store::Saved::Kept));
  }
};

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
  const auto history = store.lookupFor("alice")->history("resp_3");
  BOOST_REQUIRE(history.has_value());
  BOOST_TEST(contents(*history) == (std::vector<std::string>{"otters", "answer to otters", "beavers",
                                                             "answer to beavers", "voles", "answer to voles"}));
  // From the middle of the chain, the later turn is not part of it.
  BOOST_TEST(store.lookupFor("alice")->history("resp_2")->size() == 4u);
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
  BOOST_TEST(!store.lookupFor("bob")->history("resp_1").has_value());
  BOOST_TEST(!store.get("bob", "resp_1").has_value());
  BOOST_TEST(!store.remove("bob", "resp_1"));
  BOOST_TEST(store.lookupFor("bob")->items({"resp_1_msg"}).empty());
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
  BOOST_REQUIRE((store.save("alice", response, std::nullopt,
                            {Json{{"id", "resp_1_in"}, {"role", "user"}, {"content", "otters again"}}}) ==
                 responses::Store::Saved::Kept));
  const auto found = store.lookupFor("alice")->items({"resp_1_in", "resp_2_msg", "nope"});
  BOOST_TEST(found.size() == 2u);
  BOOST_TEST(found.at("resp_1_in")["content"] == "otters again");
  BOOST_TEST(found.at("resp_2_msg")["content"] == "answer to beavers");
}

BOOST_FIXTURE_TEST_CASE(input_items_page_both_ways_after_an_item, Fixture) {
  std::vector<Json> input;
  for (int i = 1; i <= 5; ++i) input.push_back(Json{{"id", "in_" + std::to_string(i)}, {"content", std::to_string(i)}});
  BOOST_REQUIRE((store.save("alice", Json{{"id", "resp_p"}, {"output", Json::array()}}, std::nullopt, input) ==
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
  BOOST_TEST((small.save("alice", big, std::nullopt, {}) == responses::Store::Saved::TooLarge));
  BOOST_TEST((small.save("alice", Json{{"output", Json::array()}}, std::nullopt, {}) ==
              responses::Store::Saved::TooLarge));
  BOOST_TEST(items->responses() == 0u);
}

BOOST_FIXTURE_TEST_CASE(saving_an_id_again_replaces_it_and_remove_deletes_it, Fixture) {
  turn("alice", "resp_1", "otters");
  turn("alice", "resp_1", "beavers");
  BOOST_TEST(contents(*store.lookupFor("alice")->history("resp_1")) ==
             (std::vector<std::string>{"beavers", "answer to beavers"}));
  BOOST_TEST(store.remove("alice", "resp_1"));
  BOOST_TEST(!store.remove("alice", "resp_1"));
  BOOST_TEST(!store.get("alice", "resp_1").has_value());
}

BOOST_FIXTURE_TEST_CASE(expired_responses_are_not_found_and_are_purged, Fixture) {
  turn("alice", "resp_1", "otters");
  items->setNow(system_clock::time_point(seconds(1'795'988'600)) + hours(24 * 29));
  turn("alice", "resp_2", "beavers", "resp_1");
  BOOST_TEST(store.lookupFor("alice")->history("resp_2")->size() == 4u);
  items->setNow(system_clock::time_point(seconds(1'795'988'600)) + hours(24 * 31));
  // resp_1 is past its 30 days: the chain stops at it.
  BOOST_TEST(contents(*store.lookupFor("alice")->history("resp_2")) ==
             (std::vector<std::string>{"beavers", "answer to beavers"}));
  BOOST_TEST(!store.get("alice", "resp_1").has_value());
  BOOST_TEST(store.purgeExpired() == 1u);
  BOOST_TEST(items->responses() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
