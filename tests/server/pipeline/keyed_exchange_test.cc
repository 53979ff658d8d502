// The pipeline in-process with identity, quotas and the Responses store on tests/fakes' storage
// (keyed_request_path.h): keys checked, refused and revoked, a quota spent, a stored conversation
// continued, and every lane (passthrough, translated, masked, an operation), each asserted on the
// bytes the client and the provider see.
#include <boost/test/unit_test.hpp>

#include <strings.h>

#include <string>

#include "server/identity/api_keys.h"
#include "tests/server/pipeline/keyed_request_path.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

// A head field of the client's reply ("" when absent).
std::string replyHeader(const Reply& reply, const std::string& name) {
  size_t at = 0;
  while ((at = reply.head.find("\r\n", at)) != std::string::npos) {
    at += 2;
    const size_t colon = reply.head.find(':', at);
    if (colon == std::string::npos) break;
    if (strncasecmp(reply.head.c_str() + at, name.c_str(), name.size()) == 0 && colon - at == name.size()) {
      const size_t end = reply.head.find("\r\n", colon);
      return reply.head.substr(colon + 2, end == std::string::npos ? std::string::npos : end - colon - 2);
    }
  }
  return "";
}

using Headers = std::vector<std::pair<std::string, std::string>>;
Headers anthropicKey(const std::string& key) { return {{"x-api-key", key}, {"anthropic-version", "2023-06-01"}}; }
Headers bearer(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }

const std::string kEmbeddingAnswer =
    R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"embed",)"
    R"("usage":{"prompt_tokens":6,"total_tokens":6}})";

}  // namespace

BOOST_AUTO_TEST_SUITE(keyed_exchange)

BOOST_AUTO_TEST_CASE(an_unknown_or_revoked_key_is_refused_with_401_in_the_callers_format) {
  KeyedRequestPath keyed;
  const std::string key = keyed.newMemberKey("alice");
  keyed.path.transport.script("raw.example", FakeTransport::json(200, anthropicAnswer("hello alice")).repeating());

  const std::string stranger = identity::generateApiKey().key;
  const Reply unknown = keyed.path.send("POST", "/v1/messages", messagesBody("claude"), anthropicKey(stranger));
  BOOST_TEST(unknown.status == 401, unknown.body);
  BOOST_TEST(unknown.json()["type"] == "error");
  BOOST_TEST(unknown.json()["error"]["type"] == "authentication_error");
  BOOST_TEST(unknown.json()["error"]["error_key"] == "invalid_api_key");
  BOOST_TEST(unknown.body.find(stranger.substr(18)) == std::string::npos);  // the secret part is never echoed

  const Reply served = keyed.path.send("POST", "/v1/messages", messagesBody("claude"), anthropicKey(key));
  BOOST_TEST(served.status == 200, served.body);
  BOOST_TEST(served.json()["content"][0]["text"] == "hello alice");

  keyed.revoke(key);
  const Reply revoked = keyed.path.send("POST", "/v1/chat/completions",
                                        R"({"model":"claude","messages":[{"role":"user","content":"hi"}]})", bearer(key));
  BOOST_TEST(revoked.status == 401, revoked.body);
  BOOST_TEST(revoked.json()["error"]["code"] == "invalid_api_key", revoked.body);
  BOOST_TEST(revoked.json()["error"]["message"] ==
             "API key sk-sluice-" + identity::keyIdFrom(key).value() + " was revoked");
  BOOST_TEST(keyed.path.transport.sentCount() == 1u);  // only the request with a live key went out
  bool served_row = false;
  for (const auto& row : keyed.path.sink.rows()) {
    if (row.outcome != "ok") continue;
    served_row = true;
    BOOST_TEST(row.user == "alice");
    BOOST_TEST(row.api_key_id == identity::keyIdFrom(key).value());
  }
  BOOST_TEST(served_row);
}

BOOST_AUTO_TEST_CASE(a_spent_quota_is_refused_with_429_and_retry_after_and_counted_nowhere) {
  KeyedRequestPath keyed(keyedCatalog("[{ id: hourly, per: user, seconds: 3600, max_requests: 1 }]"));
  const std::string alice = keyed.newMemberKey("alice");
  const std::string bob = keyed.newMemberKey("bob");
  keyed.path.transport.script("raw.example", FakeTransport::json(200, anthropicAnswer()).repeating());

  BOOST_TEST(keyed.path.send("POST", "/v1/messages", messagesBody("claude"), anthropicKey(alice)).status == 200);
  BOOST_TEST(keyed.counters->totals("user", "alice", "hourly")->requests == 1);

  const Reply spent = keyed.path.send("POST", "/v1/messages", messagesBody("claude"), anthropicKey(alice));
  BOOST_TEST(spent.status == 429, spent.body);
  BOOST_TEST(spent.json()["error"]["type"] == "rate_limit_error");
  BOOST_TEST(spent.json()["error"]["error_key"] == "quota_exceeded");
  const int retry_after = std::stoi(replyHeader(spent, "Retry-After"));
  BOOST_TEST(retry_after >= 1);
  BOOST_TEST(retry_after <= 3600);
  const Reply spent_chat = keyed.path.send("POST", "/v1/chat/completions",
                                           R"({"model":"claude","messages":[{"role":"user","content":"hi"}]})",
                                           bearer(alice));
  BOOST_TEST(spent_chat.status == 429, spent_chat.body);
  BOOST_TEST(spent_chat.json()["error"]["code"] == "quota_exceeded");
  BOOST_TEST(!replyHeader(spent_chat, "Retry-After").empty());
  BOOST_TEST(keyed.counters->totals("user", "alice", "hourly")->requests == 1);  // refusals count nowhere

  // The window is per member: bob's own budget is untouched.
  BOOST_TEST(keyed.path.send("POST", "/v1/messages", messagesBody("claude"), anthropicKey(bob)).status == 200);
  BOOST_TEST(keyed.path.transport.sentCount() == 2u);
  // Settled with what the provider reported: 10 input and 3 output tokens.
  BOOST_TEST(keyed.counters->totals("user", "bob", "hourly")->output_tokens == 3);
}

BOOST_AUTO_TEST_CASE(a_stored_response_is_continued_with_previous_response_id_by_its_owner_only) {
  KeyedRequestPath keyed;
  const std::string alice = keyed.newMemberKey("alice");
  const std::string bob = keyed.newMemberKey("bob");
  keyed.path.transport.script("raw.example", FakeTransport::json(200, anthropicAnswer("Hello Ada")));
  keyed.path.transport.script("raw.example", FakeTransport::json(200, anthropicAnswer("You are Ada")));

  const Reply first = keyed.path.send("POST", "/v1/responses", R"({"model":"claude","input":"My name is Ada."})",
                                      bearer(alice));
  BOOST_TEST(first.status == 200, first.body);
  const std::string id = first.json()["id"];
  BOOST_TEST(first.json()["output"][0]["content"][0]["text"] == "Hello Ada");
  BOOST_TEST(keyed.items->responses() == 1u);

  const std::string next = R"({"model":"claude","previous_response_id":")" + id + R"(","input":"What is my name?"})";
  const Reply second = keyed.path.send("POST", "/v1/responses", next, bearer(alice));
  BOOST_TEST(second.status == 200, second.body);
  BOOST_TEST(second.json()["output"][0]["content"][0]["text"] == "You are Ada");
  // The provider received the whole conversation, in order, from the gateway's store.
  const auto sent = keyed.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  const auto messages = nlohmann::json::parse(sent[1].body)["messages"];
  BOOST_REQUIRE_EQUAL(messages.size(), 3u);
  BOOST_TEST(messages[0]["role"] == "user");
  BOOST_TEST(messages[0].dump().find("My name is Ada.") != std::string::npos, messages[0].dump());
  BOOST_TEST(messages[1]["role"] == "assistant");
  BOOST_TEST(messages[1].dump().find("Hello Ada") != std::string::npos, messages[1].dump());
  BOOST_TEST(messages[2].dump().find("What is my name?") != std::string::npos, messages[2].dump());
  BOOST_TEST(keyed.items->responses() == 2u);

  // Another member cannot continue (or even see) alice's conversation.
  const Reply foreign = keyed.path.send("POST", "/v1/responses", next, bearer(bob));
  BOOST_TEST(foreign.status == 400, foreign.body);
  BOOST_TEST(foreign.json()["error"]["code"] == "previous_response_not_found");
  BOOST_TEST(keyed.path.send("GET", "/v1/responses/" + id, "", bearer(bob)).status == 404);
  BOOST_TEST(keyed.path.send("GET", "/v1/responses/" + id, "", bearer(alice)).json()["id"] == id);
  BOOST_TEST(keyed.path.transport.sentCount() == 2u);
}

BOOST_AUTO_TEST_CASE(the_passthrough_lane_sends_the_clients_bytes_and_relays_the_providers) {
  KeyedRequestPath keyed;
  const std::string key = keyed.newMemberKey("alice");
  const std::string answer = anthropicAnswer("as it came");
  keyed.path.transport.script("raw.example/v1/messages", FakeTransport::json(200, answer));
  const std::string body =
      R"({"model":"claude",  "max_tokens":50,"messages":[{"role":"user","content":"hi  there"}],"metadata":{"user_id":"u1"}})";
  const Reply reply = keyed.path.send("POST", "/v1/messages", body, anthropicKey(key));
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.body == answer);
  const auto sent = keyed.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].body == body);
  BOOST_TEST(sentHeader(sent[0], "x-api-key") == "sk-raw");  // the platform's key, never the caller's
  const auto row = keyed.path.onlyRow();
  BOOST_TEST(row.user == "alice");
  BOOST_TEST(row.served_endpoint == "raw/api");
  BOOST_TEST(row.masked.empty());
}

BOOST_AUTO_TEST_CASE(the_translated_lane_speaks_the_providers_wire_and_answers_in_the_callers) {
  KeyedRequestPath keyed;
  const std::string key = keyed.newMemberKey("alice");
  keyed.path.transport.script("raw.example/v1/messages", FakeTransport::json(200, anthropicAnswer("translated")));
  const Reply reply = keyed.path.send(
      "POST", "/v1/chat/completions", R"({"model":"claude","max_tokens":20,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]})",
      bearer(key));
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["object"] == "chat.completion");
  BOOST_TEST(reply.json()["choices"][0]["message"]["content"] == "translated");
  BOOST_TEST(reply.json()["usage"]["prompt_tokens"] == 10);
  const auto sent = keyed.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  const auto upstream = nlohmann::json::parse(sent[0].body);
  BOOST_TEST(upstream["system"].dump().find("Be brief.") != std::string::npos, sent[0].body);
  BOOST_TEST(upstream["messages"].size() == 1u);
  BOOST_TEST(upstream["max_tokens"] == 20);
  BOOST_TEST(sentHeader(sent[0], "authorization").empty());  // the caller's bearer key is consumed, not forwarded
  BOOST_TEST(keyed.path.onlyRow().user == "alice");
}

BOOST_AUTO_TEST_CASE(the_masked_lane_sends_placeholders_to_a_public_endpoint_and_restores_the_answer) {
  KeyedRequestPath keyed;
  const std::string key = keyed.newMemberKey("alice");
  keyed.path.transport.script("public.example", FakeTransport::json(200, anthropicAnswer("Writing to ⟦EMAIL_1⟧ now.")));
  const std::string body =
      R"({"model":"claude-public","max_tokens":50,"messages":[{"role":"user","content":"Mail ann@example.com the plan."}]})";
  const Reply reply = keyed.path.send("POST", "/v1/messages", body, anthropicKey(key));
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["content"][0]["text"] == "Writing to ann@example.com now.");
  const auto sent = keyed.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].body.find("ann@example.com") == std::string::npos, sent[0].body);
  BOOST_TEST(sent[0].body.find("Mail ⟦EMAIL_1⟧ the plan.") != std::string::npos, sent[0].body);
  BOOST_TEST(sentHeader(sent[0], "x-api-key") == "sk-public");
  const auto row = keyed.path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(!row.masked.empty());
}

BOOST_AUTO_TEST_CASE(the_operations_lane_serves_embeddings_masked_for_a_public_endpoint) {
  KeyedRequestPath keyed(keyedCatalog("[{ id: hourly, per: user, seconds: 3600, max_requests: 5 }]"));
  const std::string key = keyed.newMemberKey("alice");
  keyed.path.transport.script("openai.example/v1/embeddings", FakeTransport::json(200, kEmbeddingAnswer));
  const Reply reply = keyed.path.send("POST", "/v1/embeddings",
                                      R"({"model":"embed","input":"write to ann@example.com","encoding_format":"float"})",
                                      bearer(key));
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.body == kEmbeddingAnswer);
  const auto sent = keyed.path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].url == "https://openai.example/v1/embeddings");
  BOOST_TEST(sentHeader(sent[0], "authorization") == "Bearer sk-openai");
  BOOST_TEST(sent[0].body.find("ann@example.com") == std::string::npos, sent[0].body);
  BOOST_TEST(sent[0].body.find("⟦EMAIL_1⟧") != std::string::npos, sent[0].body);
  BOOST_TEST(sent[0].body.find(R"("encoding_format":"float")") != std::string::npos, sent[0].body);
  const auto row = keyed.path.onlyRow();
  BOOST_TEST(row.user == "alice");
  BOOST_TEST(row.route_match.starts_with("endpoint:embeddings"), row.route_match);
  BOOST_TEST(keyed.counters->totals("user", "alice", "hourly")->requests == 1);  // operations spend the quota too
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
