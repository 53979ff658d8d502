// The gateway as the Responses API's store, against the real gateway, mock provider and
// PostgreSQL: previous_response_id and item_reference on every provider wire, the stored
// object's endpoints, ownership, store:false, a restart, and a conversation moving between wires.

#include <cstdio>
#include <fstream>
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

// The gateway's peak resident memory so far (VmHWM), in KiB.
long peakRssKiB(Gateway& gateway) {
  std::ifstream status("/proc/" + std::to_string(gateway.process().pid()) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  BOOST_FAIL("no VmHWM in /proc/<pid>/status");
  return -1;
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

// GET /v1/responses/{id}, looked for again for up to 2 s: a response is kept after its answer went
// out, so a GET sent at once can arrive before the commit.
int keptStatus(Gateway& gateway, const sluice::test::TestMember& member, const std::string& id) {
  int status = 0;
  for (int attempt = 0; attempt < 20 && status != 200; ++attempt) {
    if (attempt > 0) ::usleep(100'000);
    status = gateway.call("GET", "/v1/responses/" + id, as(member)).status;
  }
  return status;
}

// One input message carrying its own id, `bytes` long, for item_reference to point at later.
json bigItem(const std::string& id, size_t bytes, char fill) {
  return json{{"type", "message"}, {"id", id}, {"role", "user"}, {"content", std::string(bytes, fill)}};
}

// A Responses provider that answers every request with the same recorded response (one id).
const sluice::test::Headers kSameIdEveryTime = {
    {"x-mock-script", R"({"fixture":"openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.json"})"}};
const std::string kProvidersId = "resp_0f35ed53160b395301693cc957829881909359e7f80cdd20b5";

json createWith(Gateway& gateway, const sluice::test::TestMember& member, const json& body,
                const sluice::test::Headers& more) {
  sluice::test::Headers headers = as(member);
  headers.insert(headers.end(), more.begin(), more.end());
  const auto reply = gateway.call("POST", "/v1/responses", headers, body.dump());
  BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["id"] == "resp_" + reply.header("x-sluice-request-id"));  // the gateway's id
  return reply.json();
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

BOOST_AUTO_TEST_CASE(a_provider_repeating_its_id_can_neither_loop_nor_overwrite_a_conversation) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-sameid");
  const json first = createWith(gateway, alice, {{"model", "gpt-5-5"}, {"input", "the first otter question"}},
                                kSameIdEveryTime);
  BOOST_TEST(first["id"] != kProvidersId);
  const json second = createWith(
      gateway, alice, {{"model", "gpt-5-5"}, {"previous_response_id", first["id"]}, {"input", "the second turn"}},
      kSameIdEveryTime);
  BOOST_TEST(second["id"] != first["id"]);  // the same provider id twice made a self-loop here
  const json other = createWith(gateway, alice, {{"model", "gpt-5-5"}, {"input", "an unrelated conversation"}},
                                kSameIdEveryTime);
  BOOST_TEST(other["id"] != first["id"]);  // and overwrote the first conversation here
  const auto kept = gateway.call("GET", "/v1/responses/" + first["id"].get<std::string>() + "/input_items", as(alice));
  BOOST_REQUIRE_MESSAGE(kept.status == 200, kept.body);
  BOOST_TEST(kept.body.find("the first otter question") != std::string::npos, kept.body);

  // The chain is walked once: each turn reaches the provider once.
  create(gateway, alice, {{"model", "gpt-5-5"}, {"previous_response_id", second["id"]}, {"input", "third"}});
  const std::string sent = lastProviderBody(gateway);
  BOOST_TEST(occurrences(sent, "the first otter question") == 1u);
  BOOST_TEST(occurrences(sent, "the second turn") == 1u);
  BOOST_TEST(sent.find("an unrelated conversation") == std::string::npos);

  // Streamed, the lifecycle events carry the gateway's id too, and that is the id kept.
  std::string events;
  gateway.stream("/v1/responses",
                 {as(alice)[0], {"x-mock-script", R"({"fixture":"openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt"})"}},
                 json{{"model", "gpt-5-5"}, {"stream", true}, {"input", "streamed otters"}}.dump(),
                 [&](std::string_view chunk, const std::string&) {
                   events.append(chunk);
                   return true;
                 });
  BOOST_TEST(events.find("resp_01830d662ab3856501693c3") == std::string::npos, events.substr(0, 400));
  const size_t completed = events.find("\"response.completed\"");
  BOOST_REQUIRE_MESSAGE(completed != std::string::npos, events.substr(0, 400));
  const size_t id_at = events.find("\"id\":\"", events.find("\"response\":", completed)) + 6;
  const std::string streamed_id = events.substr(id_at, events.find('"', id_at) - id_at);
  BOOST_TEST(streamed_id.rfind("resp_", 0) == 0u);
  BOOST_TEST(keptStatus(gateway, alice, streamed_id) == 200);
}

BOOST_AUTO_TEST_CASE(a_loop_kept_before_loops_were_refused_is_walked_once) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-loop");
  // Two responses naming each other, as a provider's repeated ids could leave them.
  const std::string sql =
      "INSERT INTO stored_responses (id, owner, previous_response_id, response, size_bytes, expires_at) VALUES"
      " ('resp_loop_a', '" + alice.name + "', 'resp_loop_b', '{}', 2, now() + interval '1 hour'),"
      " ('resp_loop_b', '" + alice.name + "', 'resp_loop_a', '{}', 2, now() + interval '1 hour');"
      "INSERT INTO stored_response_items (owner, response_id, kind, position, item) VALUES"
      " ('" + alice.name + "', 'resp_loop_a', 'input', 0, '{\"role\":\"user\",\"content\":\"looping otter\"}');\n";
  const std::string file = "/tmp/sluice-it-loop-" + std::to_string(::getpid()) + ".sql";
  std::ofstream(file) << sql;
  int code = 0;
  const std::string out =
      sluice::test::capture("psql '" + testDatabaseUrl() + "' -X -q -v ON_ERROR_STOP=1 -f " + file + " 2>&1", &code);
  std::remove(file.c_str());
  BOOST_REQUIRE_MESSAGE(code == 0, out);
  create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"previous_response_id", "resp_loop_a"}, {"input", "next"}});
  BOOST_TEST(occurrences(lastProviderBody(gateway), "looping otter") == 1u);
}

BOOST_AUTO_TEST_CASE(an_item_referenced_many_times_is_refused_before_it_is_inlined) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-dupref");
  create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"input", json::array({bigItem("msg_big", 256 << 10, 'o')})}});
  const long before = peakRssKiB(gateway);
  json input = json::array();
  for (int i = 0; i < 1000; ++i) input.push_back(json{{"type", "item_reference"}, {"id", "msg_big"}});
  const auto refused =
      gateway.call("POST", "/v1/responses", as(alice), json{{"model", "claude-haiku-5-5"}, {"input", input}}.dump());
  BOOST_TEST(refused.status == 400);
  BOOST_TEST(refused.body.find("msg_big") != std::string::npos, refused.body);
  const long grown = peakRssKiB(gateway) - before;
  BOOST_CHECK_MESSAGE(grown < 32 * 1024, "peak RSS grew by " << grown << " KiB");  // 1,000 copies were 1 GB
}

BOOST_AUTO_TEST_CASE(stored_items_past_the_body_limit_are_refused_before_they_are_read) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-sum");
  // 40 stored items of 1 MiB, each fine alone; together past the 32 MiB body limit.
  json input = json::array();
  for (int i = 0; i < 40; ++i) {
    const std::string id = "msg_part_" + std::to_string(i);
    create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"input", json::array({bigItem(id, 1 << 20, 'a' + i % 26)})}});
    input.push_back(json{{"type", "item_reference"}, {"id", id}});
  }
  const long before = peakRssKiB(gateway);
  const auto refused =
      gateway.call("POST", "/v1/responses", as(alice), json{{"model", "claude-haiku-5-5"}, {"input", input}}.dump());
  BOOST_TEST(refused.status == 413);
  BOOST_TEST(refused.json()["error"]["code"] == "request_too_large");
  const long grown = peakRssKiB(gateway) - before;
  BOOST_CHECK_MESSAGE(grown < 32 * 1024, "peak RSS grew by " << grown << " KiB");  // reading them first: ~200 MB
}

BOOST_AUTO_TEST_CASE(the_inlined_items_are_charged_to_the_body_budget) {
  GatewayOptions options = storeOptions();
  options.extra_args.insert(options.extra_args.end(), {"--max-buffered-bytes", std::to_string(4 << 20)});
  Gateway gateway(options);
  const auto alice = sluice::test::newMember("resp-budget");
  // Two stored items of 3 MiB: each body fits the 4 MiB budget alone.
  for (const std::string id : {"msg_room_a", "msg_room_b"}) {
    const json kept = create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"input", json::array({bigItem(id, 3 << 20, 'r')})}});
    BOOST_REQUIRE(keptStatus(gateway, alice, kept["id"]) == 200);  // its exchange, and its body, are done
  }
  ::usleep(200'000);
  const auto ref = [](const std::string& id) { return json{{"type", "item_reference"}, {"id", id}}; };
  // A small body inlining 6 MiB does not fit: refused before the items are read.
  const auto refused = gateway.call(
      "POST", "/v1/responses", as(alice),
      json{{"model", "claude-haiku-5-5"}, {"input", json::array({ref("msg_room_a"), ref("msg_room_b")})}}.dump());
  BOOST_TEST(refused.status == 503, refused.body);
  BOOST_TEST(refused.json()["error"]["code"] == "overloaded");
  BOOST_TEST(refused.header("Retry-After") == "1");
  // One of them does.
  create(gateway, alice, {{"model", "claude-haiku-5-5"}, {"input", json::array({ref("msg_room_a")})}});
}

BOOST_AUTO_TEST_CASE(a_nested_store_false_neither_turns_the_store_off_nor_lets_the_provider_keep_it) {
  Gateway gateway(storeOptions());
  const auto alice = sluice::test::newMember("resp-nested");
  const json first =
      create(gateway, alice, {{"model", "gpt-5-5"}, {"metadata", {{"store", false}}}, {"input", "nested flag"}});
  const json sent = json::parse(lastProviderBody(gateway));
  BOOST_TEST(sent["store"] == false, sent.dump().substr(0, 300));  // the provider is told to keep nothing
  BOOST_TEST(keptStatus(gateway, alice, first["id"]) == 200);
  // A top-level store:false written twice is one the provider might read either way: refused.
  const auto twice = gateway.call("POST", "/v1/responses", as(alice),
                                  R"({"model":"gpt-5-5","store":true,"input":"x","store":false})");
  BOOST_TEST(twice.status == 400);
}

BOOST_AUTO_TEST_SUITE_END()
