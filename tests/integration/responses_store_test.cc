// The gateway as the Responses API's store, against the real gateway, mock provider and
// PostgreSQL: previous_response_id and item_reference on every provider wire, the stored
// object's endpoints, ownership, store:false, a restart, and a conversation moving between wires.

#include <string>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/integration/members.h"

using nlohmann::json;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

GatewayOptions storeOptions() {
  GatewayOptions options;
  options.auth = true;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-responses-" + std::to_string(::getpid())};
  return options;
}

sluice::test::Headers as(const sluice::test::TestMember& member) { return {{"Authorization", "Bearer " + member.key}}; }

json create(Gateway& gateway, const sluice::test::TestMember& member, const json& body) {
  const auto reply = gateway.call("POST", "/v1/responses", as(member), body.dump());
  BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
  return reply.json();
}

// The texts of the messages the provider was last sent, whatever its wire, as one string.
std::string lastProviderBody(Gateway& gateway) { return gateway.mockJson("/_mock/last")["body"].get<std::string>(); }

std::string outputText(const json& response) {
  std::string text;
  for (const auto& item : response["output"]) {
    if (item.value("type", "") != "message") continue;
    for (const auto& part : item["content"]) text += part.value("text", "");
  }
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(responses_store)

BOOST_AUTO_TEST_CASE(previous_response_id_continues_the_conversation_on_every_provider_wire) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-alice");
  for (const std::string model : {"claude-haiku-5-5", "gpt-5-5", "gemini-3-flash", "deepseek-flash"}) {
    BOOST_TEST_CONTEXT(model) {
      const json first = create(gateway, alice, {{"model", model}, {"input", "the first question about otters"}});
      const std::string answer = outputText(first);
      BOOST_TEST(!answer.empty());
      const json second = create(gateway, alice, {{"model", model},
                                                  {"previous_response_id", first["id"]},
                                                  {"input", "and the second question"}});
      BOOST_TEST(second["id"] != first["id"]);
      const std::string sent = lastProviderBody(gateway);
      BOOST_TEST(sent.find("the first question about otters") != std::string::npos, sent);
      BOOST_TEST(sent.find(json(answer).dump().substr(1, 20)) != std::string::npos, sent);
      BOOST_TEST(sent.find("and the second question") != std::string::npos);
      BOOST_TEST(sent.find("previous_response_id") == std::string::npos);
      // A third turn walks the whole chain.
      create(gateway, alice, {{"model", model}, {"previous_response_id", second["id"]}, {"input", "a third"}});
      const std::string third = lastProviderBody(gateway);
      BOOST_TEST(third.find("the first question about otters") != std::string::npos);
      BOOST_TEST(third.find("and the second question") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_streamed_turn_is_stored_too) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-stream");
  std::string events;
  const auto streamed = gateway.stream(
      "/v1/responses", as(alice),
      json{{"model", "claude-haiku-5-5"}, {"stream", true}, {"input", "streamed otters"}}.dump(),
      [&](std::string_view chunk, const std::string&) {
        events.append(chunk);
        return true;
      });
  const size_t at = events.find("\"response.completed\"");
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, events);
  const size_t id_at = events.find("\"id\":\"", events.find("\"response\":", at));
  const std::string id = events.substr(id_at + 6, events.find('"', id_at + 6) - id_at - 6);
  const auto kept = gateway.call("GET", "/v1/responses/" + id, as(alice));
  BOOST_REQUIRE_MESSAGE(kept.status == 200, kept.body);
  BOOST_TEST(kept.json()["id"] == id);
  create(gateway, alice, {{"model", "gpt-5-5"}, {"previous_response_id", id}, {"input", "next"}});
  BOOST_TEST(lastProviderBody(gateway).find("streamed otters") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(item_reference_inlines_the_stored_items) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-ref");
  const json first = create(gateway, alice, {{"model", "gemini-3-flash"}, {"input", "tell me of beavers"}});
  const std::string item_id = first["output"].back()["id"];
  create(gateway, alice,
         {{"model", "claude-haiku-5-5"},
          {"input", json::array({json{{"role", "user"}, {"content", "tell me of beavers"}},
                                 json{{"type", "item_reference"}, {"id", item_id}},
                                 json{{"role", "user"}, {"content", "more please"}}})}});
  const std::string sent = lastProviderBody(gateway);
  BOOST_TEST(sent.find(json(outputText(first)).dump().substr(1, 20)) != std::string::npos, sent);
  BOOST_TEST(sent.find("item_reference") == std::string::npos);

  const auto missing = gateway.call("POST", "/v1/responses", as(alice),
                                    json{{"model", "claude-haiku-5-5"},
                                         {"input", json::array({json{{"type", "item_reference"}, {"id", "msg_nope"}}})}}
                                        .dump());
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.body.find("msg_nope") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_response_belongs_to_its_member) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-owner");
  const auto bob = sluice::test::newMember("resp-other");
  const json first = create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"input", "alice's secret plan"}});
  const std::string id = first["id"];

  BOOST_TEST(gateway.call("GET", "/v1/responses/" + id, as(bob)).status == 404);
  BOOST_TEST(gateway.call("GET", "/v1/responses/" + id + "/input_items", as(bob)).status == 404);
  BOOST_TEST(gateway.call("DELETE", "/v1/responses/" + id, as(bob)).status == 404);
  const auto borrowed = gateway.call("POST", "/v1/responses", as(bob),
                                     json{{"model", "claude-haiku-5-5"}, {"previous_response_id", id}, {"input", "x"}}.dump());
  BOOST_TEST(borrowed.status == 400);
  BOOST_TEST(borrowed.json()["error"]["code"] == "previous_response_not_found");
  BOOST_TEST(gateway.call("GET", "/v1/responses/" + id, {}).status == 401);

  const auto kept = gateway.call("GET", "/v1/responses/" + id, as(alice));
  BOOST_REQUIRE_MESSAGE(kept.status == 200, kept.body);
  BOOST_TEST(kept.json()["output"] == first["output"]);
  const auto inputs = gateway.call("GET", "/v1/responses/" + id + "/input_items", as(alice));
  BOOST_REQUIRE_MESSAGE(inputs.status == 200, inputs.body);
  BOOST_TEST(inputs.json()["object"] == "list");
  BOOST_TEST(inputs.body.find("alice's secret plan") != std::string::npos);
  BOOST_TEST(gateway.call("GET", "/v1/responses/" + id + "/input_items?limit=0", as(alice)).status == 400);

  const auto deleted = gateway.call("DELETE", "/v1/responses/" + id, as(alice));
  BOOST_TEST(deleted.status == 200);
  BOOST_TEST(deleted.json()["deleted"] == true);
  BOOST_TEST(gateway.call("GET", "/v1/responses/" + id, as(alice)).status == 404);
}

BOOST_AUTO_TEST_CASE(store_false_keeps_nothing) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-nostore");
  const json first = create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"store", false}, {"input", "forget me"}});
  BOOST_TEST(gateway.call("GET", "/v1/responses/" + first["id"].get<std::string>(), as(alice)).status == 404);
}

BOOST_AUTO_TEST_CASE(the_conversation_survives_a_restart_and_moves_between_wires) {
  const auto alice = sluice::test::newMember("resp-restart");
  std::string id;
  {
    Gateway gateway(storeOptions());
    id = create(gateway, alice, {{"model", "gpt-5-5"}, {"input", "remember the walrus"}})["id"];
  }
  Gateway restarted(storeOptions());
  for (const std::string model : {"gemini-3-flash", "claude-haiku-5-5", "deepseek-flash"}) {
    create(restarted, alice, {{"model", model}, {"previous_response_id", id}, {"input", "what did I say?"}});
    BOOST_TEST(lastProviderBody(restarted).find("remember the walrus") != std::string::npos, model);
  }
}

BOOST_AUTO_TEST_SUITE_END()
