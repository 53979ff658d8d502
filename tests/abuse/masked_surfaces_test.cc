// Where a client could hide a secret from masking, against the real gateway and the mock: behind
// a "data: " prefix, in a tool's definition (a custom tool's description, an MCP tool's URL and
// headers, a schema's enum), in a sentence ("..., password: hunter2, and ..."). What the public
// provider received (the mock's record) holds none of them; a `block:` kind hidden the same way is
// refused. The catalog is the data-protection one of the integration tests: `pub-resp` and `pub`
// are public endpoints (Responses and Anthropic wires), private keys blocked.

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

const std::string kPassword = "Qx7pLm2zQx";
const std::string kEmail = "carol@example.com";
const std::string kApiKey = "sk-proj-AbCdEf0123456789GhIjKlMnOp";
const std::string kMcpPassword = "Hunter2pass";
const std::string kProsePassword = "hunter2";
const std::string kEnumEmail = "dana@example.org";
const std::string kPem = "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";

Gateway protectedGateway() {
  const std::string catalog = sluice::test::sourceDir() + "/tests/integration/catalogs/protection";
  GatewayOptions options;
  options.services = catalog;
  options.extra_env = {{"PROTECTION_VAULT", catalog + "/vault.txt"}};
  return Gateway(options);
}

// The bodies the mock recorded on `path`.
std::vector<std::string> received(Gateway& gateway, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& entry : gateway.mockJson("/_mock/requests")) {
    if (entry["path"] == path) out.push_back(entry["body"].get<std::string>());
  }
  return out;
}

// A Responses request hiding secrets in every place the gateway once sent raw; `output` is the
// text of a custom tool's output.
json responsesRequest(const std::string& output) {
  json body = json::parse(R"({"model":"pub-resp","input":[
      {"type":"message","role":"user","content":"Hi team, the staging login is admin, password: )" + kProsePassword +
                          R"(, and it expires on Friday."},
      {"type":"custom_tool_call","call_id":"c1","name":"mailer","input":"send"},
      {"type":"custom_tool_call_output","call_id":"c1","output":""}],
    "tools":[
      {"type":"custom","name":"mailer","description":"Mails )" + kEmail + R"( for you"},
      {"type":"mcp","server_label":"crm","server_url":"https://svc:)" + kMcpPassword + R"(@mcp.example.com/sse",
       "headers":{"Authorization":"Bearer )" + kApiKey + R"("},"require_approval":"never"},
      {"type":"function","name":"send","description":"Send a mail","parameters":{"type":"object","properties":{
        "to":{"type":"string","enum":[")" + kEnumEmail + R"("]}}}}]})");
  body["input"][2]["output"] = output;
  return body;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(abuse_masked_surfaces)

BOOST_AUTO_TEST_CASE(secrets_behind_a_data_prefix_in_tool_definitions_and_in_prose_reach_a_public_provider_masked) {
  Gateway gateway = protectedGateway();
  const std::string output = "data: DB_PASSWORD=" + kPassword + " " + kEmail + " " + kApiKey;
  const auto response = gateway.call("POST", "/v1/responses", {}, responsesRequest(output).dump());
  BOOST_TEST_REQUIRE(response.status == 200, response.body);
  const auto sent = received(gateway, "/pub-resp/v1/responses");
  BOOST_TEST_REQUIRE(sent.size() == 1u);
  for (const std::string& original : {kPassword, kEmail, kApiKey, kMcpPassword, kEnumEmail}) {
    BOOST_TEST(sent[0].find(original) == std::string::npos, original << " reached the provider: " << sent[0]);
  }
  BOOST_TEST(sent[0].find("password: " + kProsePassword + ",") == std::string::npos, sent[0]);
  // The tools are still the client's: their types, names and the MCP host go out as written.
  for (const std::string kept : {"\"mcp\"", "\"mailer\"", "mcp.example.com/sse", "Bearer ", "\"data: DB_PASSWORD="}) {
    BOOST_TEST(sent[0].find(kept) != std::string::npos, kept << " missing from " << sent[0]);
  }
}

BOOST_AUTO_TEST_CASE(a_private_key_behind_a_data_prefix_is_blocked_like_any_other) {
  Gateway gateway = protectedGateway();
  const auto responses = gateway.call("POST", "/v1/responses", {}, responsesRequest("data: " + kPem).dump());
  BOOST_TEST(responses.status == 400);
  BOOST_TEST(responses.body.find("data_protection_blocked") != std::string::npos, responses.body);
  // An Anthropic plain-text document whose text starts "data: ".
  const json messages = {
      {"model", "pub"},
      {"max_tokens", 20},
      {"messages", json::array({{{"role", "user"},
                                  {"content", json::array({{{"type", "document"},
                                                            {"source", {{"type", "text"},
                                                                        {"media_type", "text/plain"},
                                                                        {"data", "data: " + kPem}}}},
                                                           {{"type", "text"}, {"text", "What is this?"}}})}}})}};
  const auto anthropic = gateway.call("POST", "/v1/messages", {}, messages.dump());
  BOOST_TEST(anthropic.status == 400);
  BOOST_TEST(anthropic.body.find("data_protection_blocked") != std::string::npos, anthropic.body);
  BOOST_TEST(received(gateway, "/pub-resp/v1/responses").empty());
  BOOST_TEST(received(gateway, "/pub/v1/messages").empty());
}

BOOST_AUTO_TEST_SUITE_END()
