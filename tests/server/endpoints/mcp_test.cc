// The MCP endpoint as a profile of the one pipeline, in-process: a server that is down or slow,
// the sealed session, masking and restoring, what leaves a row. The fake transport plays the MCP
// server; tests/e2e/mcp.test.mjs has the official SDK on both sides.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

#include <unistd.h>

#include "server/endpoints/mcp_session.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

catalog::CatalogSources mcpSources(bool protect) {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  primary: { kind: platform, secret: env:PRIMARY_KEY }
  tools: { kind: platform, secret: env:TOOLS_TOKEN }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  primary:
    credential: primary
    endpoints:
      api: { wire: anthropic, url: "https://primary.example" }
  tools:
    credential: tools
    trust: public
    breaker: { failures: 2, cooldown_s: 60 }
    retry: { attempts: 2, backoff_ms: 1 }
    endpoints:
      mcp: { wire: mcp, url: "https://tools.example/mcp" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", "models:\n  chain-model: {}\n"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", "deployments:\n  chain-model: [primary/api]\n"};
  sources.gateway = catalog::SourceText{
      "ai/gateway.yaml",
      std::string("gateway:\n  default_model: chain-model\n") + (protect ? "  data_protection:\n    mask: [email]\n" : "")};
  sources.env = {{"PRIMARY_KEY", "sk-primary"}, {"TOOLS_TOKEN", "tools-secret"}};
  return sources;
}

const std::vector<std::pair<std::string, std::string>> kAccept = {{"Accept", "application/json, text/event-stream"}};

std::string call(const std::string& tool, const std::string& arguments = "{}") {
  return R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" +
         arguments + "}}";
}

std::string headerOf(const std::string& head, const std::string& name) {
  const std::string needle = "\r\n" + name + ": ";
  const size_t at = head.find(needle);
  if (at == std::string::npos) return "";
  const size_t start = at + needle.size();
  return head.substr(start, head.find("\r\n", start) - start);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mcp_endpoint)

BOOST_AUTO_TEST_CASE(a_call_is_sent_once_with_the_platform_token_and_leaves_one_row) {
  RequestPath path(compileProtected(mcpSources(false)));
  path.transport.script("tools.example/mcp",
                        FakeTransport::json(200, R"({"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"ok"}]}})"));
  const Reply reply = path.send("POST", "/mcp/tools", call("echo"), kAccept);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["result"]["content"][0]["text"] == "ok");
  const auto calls = path.transport.sent();
  BOOST_REQUIRE(calls.size() == 1u);
  const upstream::Request& sent = calls[0];
  BOOST_TEST(sent.url == "https://tools.example/mcp");
  BOOST_TEST(sentHeader(sent, "Authorization") == "Bearer tools-secret");
  BOOST_TEST(sentHeader(sent, "Accept") == "application/json, text/event-stream");
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.client_wire == "mcp");
  BOOST_TEST(row.route_match == "endpoint:mcp;mcp:tools;tool:echo");
  BOOST_TEST(row.unit == "tool_calls");
  BOOST_TEST(row.units == 1);
}

BOOST_AUTO_TEST_CASE(a_server_that_is_down_is_a_jsonrpc_error_and_a_tool_call_is_never_retried) {
  RequestPath path(compileProtected(mcpSources(false)));
  path.transport.script("tools.example/mcp", FakeTransport::json(503, R"({"error":"overloaded"})"));
  const Reply reply = path.send("POST", "/mcp/tools", call("echo"), kAccept);
  BOOST_TEST(reply.status == 200, reply.body);  // the call's answer is the JSON-RPC error
  const auto answer = reply.json();
  BOOST_TEST(answer["id"] == 5);
  BOOST_TEST(answer["error"]["code"] == -32000);
  BOOST_TEST(answer["error"]["data"]["status"].get<int>() >= 500);
  BOOST_TEST(path.transport.sent().size() == 1u);  // a tool call may change the world: once
  BOOST_TEST(path.onlyRow().outcome == "upstream_error");
}

BOOST_AUTO_TEST_CASE(an_unreachable_server_is_a_jsonrpc_error_and_a_listing_is_retried) {
  RequestPath path(compileProtected(mcpSources(false)));
  path.transport.script("tools.example/mcp", FakeTransport::failBeforeHead(upstream::TransportFailure::Connect));
  const Reply reply = path.send("POST", "/mcp/tools", call("echo"), kAccept);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["error"]["code"] == -32000, reply.body);
  BOOST_TEST(reply.json()["error"]["data"]["error_key"] == "upstream_unreachable", reply.body);
  BOOST_TEST(path.transport.sentCount() == 1u);
  BOOST_TEST(path.onlyRow().outcome == "upstream_error");
  // A listing changes nothing: retried within the provider's retry: like any call.
  path.transport.script("tools.example/mcp", FakeTransport::json(503, R"({"error":"busy"})"));
  path.transport.script("tools.example/mcp", FakeTransport::json(200, R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})"));
  const Reply list = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", kAccept);
  BOOST_TEST(list.status == 200, list.body);
  BOOST_TEST(list.json()["result"]["tools"].is_array(), list.body);
  BOOST_TEST(path.transport.sentCount() == 3u);
}

BOOST_AUTO_TEST_CASE(listings_and_notifications_are_counted_not_audited) {
  RequestPath path(compileProtected(mcpSources(false)));
  path.transport.script("tools.example/mcp", FakeTransport::json(200, R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})"));
  const Reply list = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", kAccept);
  BOOST_TEST(list.status == 200, list.body);
  path.transport.script("tools.example/mcp", FakeTransport::json(202, ""));
  const Reply note = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", kAccept);
  BOOST_TEST(note.status == 202, note.body);
  BOOST_TEST(path.sink.rows().empty());
}

BOOST_AUTO_TEST_CASE(the_servers_session_is_sealed_for_the_client_and_opened_for_the_server) {
  RequestPath path(compileProtected(mcpSources(false)));
  path.transport.script("tools.example/mcp",
                        FakeTransport::json(200, R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}})",
                                            {{"Mcp-Session-Id", "server-session-42"}}));
  const Reply init = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", kAccept);
  const std::string sealed = headerOf(init.head, "Mcp-Session-Id");
  BOOST_TEST(sealed.starts_with("mcp1-"), init.head);
  BOOST_TEST(sealed.find("server-session-42") == std::string::npos);
  auto headers = kAccept;
  headers.emplace_back("Mcp-Session-Id", sealed);
  headers.emplace_back("MCP-Protocol-Version", "2025-06-18");
  path.transport.script("tools.example/mcp", FakeTransport::json(200, R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  const Reply next = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","id":2,"method":"ping"})", headers);
  BOOST_TEST(next.status == 200, next.body);
  const auto calls = path.transport.sent();
  const upstream::Request& sent = calls.back();
  BOOST_TEST(sentHeader(sent, "Mcp-Session-Id") == "server-session-42");
  BOOST_TEST(sentHeader(sent, "MCP-Protocol-Version") == "2025-06-18");
  // A forged or altered id is not found: the client starts a new session.
  std::string forged = sealed;
  forged.back() = forged.back() == '0' ? '1' : '0';
  headers[1].second = forged;
  const Reply refused = path.send("POST", "/mcp/tools", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", headers);
  BOOST_TEST(refused.status == 404, refused.body);
  BOOST_TEST(refused.json()["error"]["data"]["error_key"] == "mcp_session_not_found");
}

BOOST_AUTO_TEST_CASE(arguments_are_masked_for_a_public_server_and_restored_in_a_streamed_result) {
  RequestPath path(compileProtected(mcpSources(true)));
  path.transport.script(
      "tools.example/mcp",
      FakeTransport::sse({"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n",
                          "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"text\","
                          "\"text\":\"mailed \xE2\x9F\xA6" "EMAIL_1\xE2\x9F\xA7\"}]}}\n\n"}));
  const Reply reply = path.send("POST", "/mcp/tools", call("send", R"({"to":"dana@example.com","cc":["x"]})"), kAccept);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.body.find("mailed dana@example.com") != std::string::npos, reply.body);
  BOOST_TEST(reply.body.find("notifications/progress") != std::string::npos, reply.body);
  const std::string sent = path.transport.sent().at(0).body;
  BOOST_TEST(sent.find("dana@example.com") == std::string::npos, sent);
  BOOST_TEST(sent.find("EMAIL_1") != std::string::npos, sent);
  BOOST_TEST(sent.find("\"name\":\"send\"") != std::string::npos, sent);  // names are never masked
  BOOST_TEST(path.onlyRow().masked.at("email") == 1);
}

BOOST_AUTO_TEST_CASE(a_client_that_hangs_up_mid_call_ends_the_call_upstream) {
  RequestPath path(compileProtected(mcpSources(false)));
  auto answer = FakeTransport::sse(
      {"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n"});
  answer.stallAfterBody();  // the tool runs on and on
  path.transport.script("tools.example/mcp", answer);
  const auto started = std::chrono::steady_clock::now();
  path.send("POST", "/mcp/tools", call("slow"), kAccept, [](int client) {
    char buffer[256];
    (void)::read(client, buffer, sizeof buffer);  // the head and the progress event arrived
    ::close(client);
  });
  BOOST_TEST((std::chrono::steady_clock::now() - started < std::chrono::seconds(5)));
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "client_gone_mid_stream");
  BOOST_TEST(row.status == 499);
  BOOST_TEST(path.transport.aborted() >= 1);  // the server's connection closed: the call ends there
}

BOOST_AUTO_TEST_CASE(an_unknown_server_and_a_model_endpoint_are_not_mcp_servers) {
  RequestPath path(compileProtected(mcpSources(false)));
  for (const std::string name : {"nothing", "primary", "..", "a%20b"}) {
    const Reply reply = path.send("POST", "/mcp/" + name, R"({"jsonrpc":"2.0","id":1,"method":"ping"})", kAccept);
    BOOST_TEST(reply.status == 404, name << ": " << reply.body);
  }
  BOOST_TEST(path.transport.sent().empty());
  const Reply wrong = path.send("PUT", "/mcp/tools", "{}", kAccept);
  BOOST_TEST(wrong.status == 405);
}

BOOST_AUTO_TEST_CASE(sessions_open_only_for_the_member_and_server_they_were_sealed_for) {
  const std::array<unsigned char, 32> bytes{1, 2, 3};
  const endpoints::McpSessions sessions(identity::Vault(identity::MasterKey::fromBytes(bytes)));
  const std::string token = sessions.seal("abc-123", "alice", "github");
  BOOST_TEST(sessions.open(token, "alice", "github").value_or("") == "abc-123");
  BOOST_TEST(!sessions.open(token, "bob", "github").has_value());
  BOOST_TEST(!sessions.open(token, "alice", "jira").has_value());
  BOOST_TEST(!sessions.open("mcp1-", "alice", "github").has_value());
  BOOST_TEST(!sessions.open("mcp1-abc-zz", "alice", "github").has_value());
  BOOST_TEST(!sessions.open(std::string(10000, 'a'), "alice", "github").has_value());
  // Another replica with the same key opens it; one with another key does not.
  const endpoints::McpSessions replica(identity::Vault(identity::MasterKey::fromBytes(bytes)));
  BOOST_TEST(replica.open(token, "alice", "github").value_or("") == "abc-123");
  const std::array<unsigned char, 32> other{9};
  const endpoints::McpSessions stranger(identity::Vault(identity::MasterKey::fromBytes(other)));
  BOOST_TEST(!stranger.open(token, "alice", "github").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
