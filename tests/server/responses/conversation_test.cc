#include "server/responses/conversation.h"

#include <boost/test/unit_test.hpp>

#include "server/wire/sse.h"

using namespace sluice;
using responses::Json;

namespace {

// A member's store in memory: items measured by their text's bytes, summed before they are read.
class FakeLookup : public responses::ItemLookup {
 public:
  std::map<std::string, std::vector<Json>> chains;
  std::map<std::string, Json> by_id;
  int item_lookups = 0;
  int reads = 0;                   // lookups that read the items
  std::vector<size_t> asked_room;  // max_bytes of every lookup

  responses::Inlined inlined(const std::optional<std::string>& previous, const std::vector<std::string>& ids,
                             size_t max_bytes, const std::function<bool(size_t)>& charge) override {
    ++item_lookups;
    asked_room.push_back(max_bytes);
    responses::Inlined out;
    std::vector<Json> history;
    if (previous) {
      const auto it = chains.find(*previous);
      if (it == chains.end()) {
        out.outcome = store::InlineOutcome::PreviousMissing;
        return out;
      }
      history = it->second;
    }
    std::map<std::string, Json> found;
    for (const auto& id : ids) {
      const auto it = by_id.find(id);
      if (it == by_id.end()) {
        out.outcome = store::InlineOutcome::ItemMissing;
        out.missing_item = id;
        return out;
      }
      found.emplace(id, it->second);
    }
    for (const Json& item : history) out.bytes += item.dump().size();
    for (const auto& [id, item] : found) out.bytes += item.dump().size();
    if (out.bytes > max_bytes) {
      out.outcome = store::InlineOutcome::TooLarge;
      return out;
    }
    if (!charge(out.bytes)) {
      out.outcome = store::InlineOutcome::NoRoom;
      return out;
    }
    ++reads;
    out.history = std::move(history);
    out.items = std::move(found);
    return out;
  }
};

const Json kAnswer = Json::parse(R"({"id":"msg_1","type":"message","role":"assistant",
  "content":[{"type":"output_text","text":"otters hold hands"}]})");
const Json kReasoning = Json::parse(R"({"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAA"})");

}  // namespace

BOOST_AUTO_TEST_SUITE(conversation)

BOOST_AUTO_TEST_CASE(previous_response_id_puts_the_stored_turns_first) {
  FakeLookup lookup;
  lookup.chains["resp_1"] = {Json{{"role", "user"}, {"content", "tell me of otters"}}, kReasoning, kAnswer};
  const auto expanded =
      responses::expand(R"({"model":"m","previous_response_id":"resp_1","input":"and beavers?"})", lookup);
  BOOST_REQUIRE(expanded.has_value());
  const Json body = Json::parse(expanded->body);
  BOOST_TEST(!body.contains("previous_response_id"));
  BOOST_REQUIRE(body["input"].size() == 4u);
  BOOST_TEST(body["input"][0]["content"] == "tell me of otters");
  BOOST_TEST(body["input"][1]["id"] == "rs_1");  // reasoning keeps its id and encrypted content
  BOOST_TEST(body["input"][1]["encrypted_content"] == "gAAA");
  BOOST_TEST(!body["input"][2].contains("id"));  // another store's id means nothing elsewhere
  BOOST_TEST(body["input"][3]["content"] == "and beavers?");
  BOOST_TEST(body["store"] == false);
  BOOST_TEST(body["include"] == Json::array({"reasoning.encrypted_content"}));
  BOOST_TEST(expanded->previous_response_id.value() == "resp_1");
  BOOST_TEST(expanded->store);
  BOOST_REQUIRE(expanded->input.size() == 1u);  // the turn's own input, for the store
  BOOST_TEST(expanded->input[0]["content"] == "and beavers?");
}

BOOST_AUTO_TEST_CASE(item_references_are_replaced_in_place_with_one_lookup) {
  FakeLookup lookup;
  lookup.by_id["msg_1"] = kAnswer;
  const auto expanded = responses::expand(
      R"({"input":[{"role":"user","content":"q"},{"type":"item_reference","id":"msg_1"},{"role":"user","content":"q2"}],
          "include":["file_search_call.results"],"store":true})",
      lookup);
  BOOST_REQUIRE(expanded.has_value());
  const Json body = Json::parse(expanded->body);
  BOOST_TEST(body["input"][1]["content"][0]["text"] == "otters hold hands");
  BOOST_TEST(body["include"] == Json::array({"file_search_call.results", "reasoning.encrypted_content"}));
  BOOST_TEST(lookup.item_lookups == 1);
  BOOST_TEST(expanded->input[1]["type"] == "message");
}

BOOST_AUTO_TEST_CASE(missing_state_is_refused_as_openai_refuses_it) {
  FakeLookup lookup;
  const auto previous = responses::expand(R"({"previous_response_id":"resp_gone","input":"x"})", lookup);
  BOOST_REQUIRE(!previous.has_value());
  BOOST_TEST(previous.error().status == 400);
  BOOST_TEST(previous.error().key == "previous_response_not_found");
  BOOST_TEST(previous.error().param.value_or("") == "previous_response_id");
  const auto item = responses::expand(R"({"input":[{"type":"item_reference","id":"msg_gone"}]})", lookup);
  BOOST_REQUIRE(!item.has_value());
  BOOST_TEST(item.error().status == 404);
  BOOST_TEST(item.error().param.value_or("") == "input[0]");
  BOOST_TEST(!responses::expand(R"({"input":[{"type":"item_reference"}]})", lookup).has_value());
  BOOST_TEST(!responses::expand(R"({"previous_response_id":7,"input":"x"})", lookup).has_value());
  BOOST_TEST(!responses::expand(R"({"store":"yes","input":"x"})", lookup).has_value());
  BOOST_TEST(!responses::expand(R"([1,2])", lookup).has_value());
  const std::string long_id(300, 'a');
  BOOST_TEST(!responses::expand(R"({"previous_response_id":")" + long_id + R"(","input":"x"})", lookup).has_value());
}

BOOST_AUTO_TEST_CASE(store_false_is_read_and_the_cheap_test_agrees) {
  FakeLookup lookup;
  const auto expanded = responses::expand(R"({"store":false,"input":"x"})", lookup);
  BOOST_REQUIRE(expanded.has_value());
  BOOST_TEST(!expanded->store);
  BOOST_TEST(!responses::mayUseStore(R"({"store": false,"input":"x"})", true));
  BOOST_TEST(responses::mayUseStore(R"({"store":true,"input":"x"})", false));
  BOOST_TEST(responses::mayUseStore(R"({"input":"x"})", false));
  BOOST_TEST(responses::mayUseStore(R"({"store":false,"previous_response_id":"r"})", true));
}

BOOST_AUTO_TEST_CASE(a_nested_store_false_does_not_turn_the_store_off) {
  // Only the top-level member counts: the member scan says whether it is false, not a substring.
  const std::string body = R"({"metadata":{"store":false},"model":"m","input":"keep me"})";
  BOOST_TEST(responses::mayUseStore(body, false));
  FakeLookup lookup;
  const auto expanded = responses::expand(body, lookup);
  BOOST_REQUIRE(expanded.has_value());
  BOOST_TEST(expanded->store);
  const Json served = Json::parse(expanded->body);
  BOOST_TEST(served["store"] == false);  // the provider keeps nothing
  BOOST_TEST(served["metadata"]["store"] == false);
}

BOOST_AUTO_TEST_CASE(an_item_referenced_twice_is_refused_before_the_store_is_asked) {
  FakeLookup lookup;
  lookup.by_id["msg_1"] = kAnswer;
  std::string input;
  for (int i = 0; i < 1000; ++i) input += std::string(i ? "," : "") + R"({"type":"item_reference","id":"msg_1"})";
  const auto refused = responses::expand(R"({"input":[)" + input + "]}", lookup);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().status == 400);
  BOOST_TEST(refused.error().param.value_or("") == "input[1].id");
  BOOST_TEST(refused.error().message.find("msg_1") != std::string::npos);
  BOOST_TEST(lookup.item_lookups == 0);
}

BOOST_AUTO_TEST_CASE(stored_items_past_the_body_limit_are_refused_before_they_are_read) {
  FakeLookup lookup;
  const Json big = {{"type", "message"}, {"role", "user"}, {"content", std::string(4000, 'o')}};
  lookup.chains["resp_1"] = {big, big};
  lookup.by_id["msg_big"] = big;
  const std::string body = R"({"previous_response_id":"resp_1","input":[{"type":"item_reference","id":"msg_big"}]})";
  responses::ExpandBounds bounds;
  bounds.max_body_bytes = 10000;
  const auto refused = responses::expand(body, lookup, bounds);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().status == 413);
  BOOST_TEST(refused.error().key == "request_too_large");
  BOOST_TEST(lookup.reads == 0);
  // The room the store is given is the limit less the client's own body.
  BOOST_TEST(lookup.asked_room.back() == bounds.max_body_bytes - body.size());
  bounds.max_body_bytes = 20000;
  BOOST_TEST(responses::expand(body, lookup, bounds).has_value());
  BOOST_TEST(lookup.reads == 1);
}

BOOST_AUTO_TEST_CASE(the_stored_bytes_are_charged_to_the_body_budget_before_they_are_read) {
  FakeLookup lookup;
  lookup.chains["resp_1"] = {kAnswer};
  std::vector<size_t> charges;
  responses::ExpandBounds bounds;
  bounds.charge = [&](size_t bytes) {
    charges.push_back(bytes);
    return false;  // a budget without room
  };
  const auto refused = responses::expand(R"({"previous_response_id":"resp_1","input":"x"})", lookup, bounds);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().status == 503);
  BOOST_TEST(refused.error().key == "overloaded");
  BOOST_TEST(refused.error().retry_after_seconds.value_or(0) == 1);
  BOOST_TEST(lookup.reads == 0);
  BOOST_REQUIRE(charges.size() == 1u);
  BOOST_TEST(charges[0] == kAnswer.dump().size());
}

BOOST_AUTO_TEST_CASE(the_gateway_mints_the_id_a_client_continues_from) {
  BOOST_TEST(responses::responseIdFor("0190a1b2-c3d4-7e5f") == "resp_0190a1b2-c3d4-7e5f");
  BOOST_TEST(responses::responseIdFor("a") != responses::responseIdFor("b"));
}

BOOST_AUTO_TEST_CASE(the_capture_keeps_the_completed_response_of_a_stream_split_anywhere) {
  const Json object{{"id", "resp_9"}, {"object", "response"}, {"output", Json::array({kAnswer})}};
  const std::string stream = wire::sseFrame("response.created", R"({"type":"response.created","response":{"id":"resp_9"}})") +
                             wire::sseFrame("response.completed", Json{{"type", "response.completed"}, {"response", object}}.dump());
  for (size_t split = 1; split < stream.size(); split += 7) {
    responses::ResponseCapture capture(true, 1u << 20);
    capture.bytes(std::string_view(stream).substr(0, split));
    capture.bytes(std::string_view(stream).substr(split));
    const auto kept = capture.response();
    BOOST_REQUIRE(kept.has_value());
    BOOST_TEST((*kept)["id"] == "resp_9");
    BOOST_TEST(responses::outputItems(*kept).size() == 1u);
  }
}

BOOST_AUTO_TEST_CASE(the_capture_keeps_a_whole_body_and_nothing_too_large_or_not_a_response) {
  responses::ResponseCapture whole(false, 1u << 20);
  whole.bytes(R"({"id":"resp_1","object":"response","output":[]})");
  BOOST_TEST(whole.response().has_value());
  responses::ResponseCapture error(false, 1u << 20);
  error.bytes(R"({"error":{"message":"no"}})");
  BOOST_TEST(!error.response().has_value());
  responses::ResponseCapture small(false, 10);
  small.bytes(R"({"id":"resp_1","object":"response","output":[]})");
  BOOST_TEST(!small.response().has_value());
  BOOST_TEST(small.tooLarge());
  responses::ResponseCapture broken(true, 1u << 20);
  broken.bytes(wire::sseFrame("response.created", R"({"type":"response.created"})"));
  BOOST_TEST(!broken.response().has_value());
}

BOOST_AUTO_TEST_SUITE_END()
