// Data protection through the real gateway: what a provider of each trust tier receives (the bytes
// the mock recorded) and what the client gets back, in the three client formats, streamed and not.
//
// The catalog is tests/integration/catalogs/protection: the public and trusted_masked providers
// run the mock with a fixed script that answers with the last user text it received (and, when
// the request offers tools, a tool call whose arguments echo it), streamed in 3-byte pieces, so the
// placeholders they received come back split across stream events. `local-box` and `raw` take the
// caller's x-mock-script (a scripted 503, or echo).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <unistd.h>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/sse.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

// The values the prompts carry, one of each kind the tests look for, and what replaces them.
const std::string kEmail = "ann.lee@example.com";
const std::string kApiKey = "sk-ant-api03-AbCdEf0123456789GhIjKlMnOpQrStUv";
const std::string kAwsKey = "AKIAIOSFODNN7EXAMPLE";
const std::string kCustomer = "Acme Rocket Corp";  // an entry of the vault
const std::string kPassword = "hunter2hunter2";
const std::string kCard = "4111 1111 1111 1111";
const std::vector<std::string> kOriginals = {kEmail, kApiKey, kAwsKey, kCustomer, kPassword, kCard};

const std::string kUserText = "Use the tool: write to " + kEmail + " that " + kCustomer + " rotates " + kApiKey +
                              " and password=" + kPassword + " today; card " + kCard + ", again " + kEmail + ".";
const std::string kSystem = "You help the ops team. Deploy key: " + kAwsKey + ".";
const std::string kToolDescription = "Sends a mail from ops@example.org";

const std::string kOpen = "\xE2\x9F\xA6";  // ⟦, the placeholders' opening bracket

const std::string kMessages = "/v1/messages";
const std::string kChat = "/v1/chat/completions";
const std::string kResponses = "/v1/responses";
const std::vector<std::string> kPaths = {kMessages, kChat, kResponses};

std::string catalogDir() { return sluice::test::sourceDir() + "/tests/integration/catalogs/protection"; }

// A copy of the catalog with `from` replaced by `to` in gateway.yaml.
std::string editedCatalog(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sluice-it-protection-catalog-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(catalogDir(), dir, fs::copy_options::recursive);
  std::ifstream in(dir / "ai/gateway.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const size_t at = yaml.find(from);
  BOOST_REQUIRE(at != std::string::npos);
  yaml.replace(at, from.size(), to);
  std::ofstream(dir / "ai/gateway.yaml") << yaml;
  return dir.string();
}

GatewayOptions options(const std::string& services) {
  GatewayOptions options;
  options.services = services;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-protection-" + std::to_string(::getpid())};
  options.extra_env = {{"PROTECTION_VAULT", catalogDir() + "/vault.txt"}};
  return options;
}

// A request in the client format of `path`, with a system prompt, a tool and the user text.
json request(const std::string& path, const std::string& model, bool stream, const std::string& user_text = kUserText) {
  const json schema = json::parse(R"({"type":"object","properties":{"text":{"type":"string"}}})");
  json body = {{"model", model}};
  if (path == kMessages) {
    body["max_tokens"] = 500;
    body["system"] = kSystem;
    body["messages"] = json::array({{{"role", "user"}, {"content", user_text}}});
    body["tools"] = json::array({{{"name", "send_mail"}, {"description", kToolDescription}, {"input_schema", schema}}});
  } else if (path == kChat) {
    body["messages"] = json::array({{{"role", "system"}, {"content", kSystem}}, {{"role", "user"}, {"content", user_text}}});
    json function = {{"name", "send_mail"}, {"description", kToolDescription}, {"parameters", schema}};
    body["tools"] = json::array({{{"type", "function"}, {"function", function}}});
  } else {
    body["instructions"] = kSystem;
    body["input"] = user_text;
    body["tools"] = json::array(
        {{{"type", "function"}, {"name", "send_mail"}, {"description", kToolDescription}, {"parameters", schema}}});
  }
  if (stream) body["stream"] = true;
  return body;
}

struct Answer {
  std::string text;
  std::string tool_arguments;  // the call's arguments as JSON text
  int text_events = 0;         // streamed text deltas
};

Answer wholeAnswer(const std::string& path, const json& body) {
  Answer out;
  if (path == kMessages) {
    for (const auto& block : body["content"]) {
      if (block["type"] == "text") out.text += block["text"].get<std::string>();
      if (block["type"] == "tool_use") out.tool_arguments = block["input"].dump();
    }
  } else if (path == kChat) {
    const json& message = body["choices"][0]["message"];
    if (message["content"].is_string()) out.text = message["content"].get<std::string>();
    if (message.contains("tool_calls")) out.tool_arguments = message["tool_calls"][0]["function"]["arguments"];
  } else {
    for (const auto& item : body["output"]) {
      if (item["type"] == "message") {
        for (const auto& part : item["content"]) out.text += part.value("text", "");
      }
      if (item["type"] == "function_call") out.tool_arguments = item["arguments"];
    }
  }
  return out;
}

Answer streamedAnswer(const std::string& path, const std::string& body) {
  Answer out;
  for (const auto& event : sluice::test::parseSse(body)) {
    if (event.data == "[DONE]") continue;
    const json data = json::parse(event.data);
    if (path == kChat) {
      if (!data.contains("choices") || data["choices"].empty()) continue;
      const json& delta = data["choices"][0]["delta"];
      if (delta.contains("content") && delta["content"].is_string() && !delta["content"].get<std::string>().empty()) {
        out.text += delta["content"].get<std::string>();
        ++out.text_events;
      }
      if (delta.contains("tool_calls")) {
        for (const auto& call : delta["tool_calls"]) out.tool_arguments += call["function"].value("arguments", "");
      }
    } else if (path == kMessages) {
      if (event.event != "content_block_delta") continue;
      if (data["delta"]["type"] == "text_delta") {
        out.text += data["delta"]["text"].get<std::string>();
        ++out.text_events;
      }
      if (data["delta"]["type"] == "input_json_delta") out.tool_arguments += data["delta"]["partial_json"].get<std::string>();
    } else {
      if (event.event == "response.output_text.delta") {
        out.text += data["delta"].get<std::string>();
        ++out.text_events;
      }
      if (event.event == "response.function_call_arguments.delta") out.tool_arguments += data["delta"].get<std::string>();
    }
  }
  return out;
}

// The error key of a refusal in the client's format.
std::string errorKey(const std::string& path, const json& body) {
  if (path == kMessages) return body["error"].value("error_key", "");
  return body["error"]["code"].is_string() ? body["error"]["code"].get<std::string>() : "";
}

struct Fixture {
  Fixture() : gateway(options(catalogDir())) {}

  // The provider requests the mock recorded on `path` ("/pub/v1/messages"), oldest first.
  std::vector<json> received(const std::string& path) {
    std::vector<json> out;
    for (const auto& entry : gateway.mockJson("/_mock/requests")) {
      if (entry["path"] == path) out.push_back(entry);
    }
    return out;
  }
  void reset() {
    sluice::test::HttpConnection connection(gateway.mock().host(), gateway.mock().port());
    connection.request("POST", "/_mock/reset");
  }
  json row(const sluice::test::HttpResponse& response) {
    return auditRow(testDatabaseUrl(), response.header("x-sluice-request-id"));
  }

  Gateway gateway;
};

// No original value of a masked kind in what a provider received, and the placeholders in it.
void expectMasked(const json& received) {
  const std::string body = received["body"].get<std::string>();
  for (const auto& original : kOriginals) {
    BOOST_TEST(body.find(original) == std::string::npos, "the provider received " << original);
  }
  BOOST_TEST(body.find("ops@example.org") == std::string::npos);  // the tool's description
  for (const char* placeholder : {"EMAIL_1", "EMAIL_2", "API_KEY_1", "API_KEY_2", "VAULT_1", "PASSWORD_1", "PAYMENT_CARD_1"}) {
    BOOST_TEST(body.find(placeholder) != std::string::npos, placeholder << " in " << body);
  }
}

std::string attemptResults(const json& row) {
  std::string out;
  for (const auto& attempt : row["attempts"]) {
    out += (out.empty() ? "" : ",") + attempt["endpoint"].get<std::string>() + "=" + attempt["result"].get<std::string>();
  }
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(data_protection, Fixture)

// Each client format to a public deployment of its own wire (where masking forces the decode and
// encode path the passthrough lane would skip) and of another wire, streamed and not.
BOOST_AUTO_TEST_CASE(a_public_deployment_receives_no_original_and_the_client_gets_them_back) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> cases = {
      {kMessages, {"pub", "/pub/v1/messages"}},
      {kChat, {"pub-chat", "/pub-chat/v1/chat/completions"}},
      {kResponses, {"pub-resp", "/pub-resp/v1/responses"}},
      {kChat, {"pub", "/pub/v1/messages"}},
      {kResponses, {"pub-chat", "/pub-chat/v1/chat/completions"}},
  };
  const json expected_arguments = {{"text", kUserText}};
  for (const auto& [path, target] : cases) {
    const auto& [model, provider_path] = target;
    for (const bool stream : {false, true}) {
      BOOST_TEST_CONTEXT(path << " -> " << model << (stream ? " streamed" : "")) {
        reset();
        const std::string body = request(path, model, stream).dump();
        Answer answer;
        std::string raw;
        if (stream) {
          auto result = gateway.stream(path, {}, body);
          BOOST_REQUIRE_EQUAL(result.status, 200);
          BOOST_TEST(result.complete);
          raw = result.body;
          answer = streamedAnswer(path, raw);
          // The mock sent 3-byte pieces: the client's deltas are many, each placeholder split.
          BOOST_TEST(answer.text_events > 20);
        } else {
          auto response = gateway.call("POST", path, {}, body);
          BOOST_REQUIRE_EQUAL(response.status, 200);
          raw = response.body;
          answer = wholeAnswer(path, response.json());
        }
        const auto sent = received(provider_path);
        BOOST_REQUIRE_EQUAL(sent.size(), 1u);
        expectMasked(sent[0]);
        // The model echoed the placeholders; the client reads its own values, text and tool call.
        BOOST_TEST(answer.text == kUserText);
        BOOST_REQUIRE(!answer.tool_arguments.empty());
        BOOST_TEST(json::parse(answer.tool_arguments) == expected_arguments);
        BOOST_TEST(raw.find(kOpen) == std::string::npos);
        BOOST_TEST(raw.find("\\u27e6") == std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_chain_from_a_local_box_to_a_public_api_masks_only_the_public_attempt) {
  for (const bool stream : {false, true}) {
    BOOST_TEST_CONTEXT((stream ? "streamed" : "unstreamed")) {
      reset();
      const std::string body = request(kMessages, "chain", stream).dump();
      // The local box fails with a 503 (its retry budget is 0): the request moves to the public API.
      const sluice::test::Headers script = {{"x-mock-script", R"({"status":503})"}};
      std::string text;
      std::string id;
      if (stream) {
        auto result = gateway.stream(kMessages, script, body);
        BOOST_REQUIRE_EQUAL(result.status, 200);
        text = streamedAnswer(kMessages, result.body).text;
        id = result.header("x-sluice-request-id");
      } else {
        auto response = gateway.call("POST", kMessages, script, body);
        BOOST_REQUIRE_EQUAL(response.status, 200);
        text = wholeAnswer(kMessages, response.json()).text;
        id = response.header("x-sluice-request-id");
      }
      BOOST_TEST(text == kUserText);
      const auto local = received("/local/v1/messages");
      BOOST_REQUIRE_EQUAL(local.size(), 1u);
      BOOST_TEST(local[0]["body"].get<std::string>() == body);  // byte for byte, as the client wrote it
      const auto pub = received("/pub/v1/messages");
      BOOST_REQUIRE_EQUAL(pub.size(), 1u);
      expectMasked(pub[0]);
      const json row = auditRow(testDatabaseUrl(), id);
      BOOST_REQUIRE(row.is_object());
      BOOST_TEST(attemptResults(row) == "local-box/api=status_503,public-anthropic/api=ok");
      BOOST_TEST(row["outcome"] == "ok");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_trusted_raw_provider_keeps_the_byte_exact_passthrough) {
  const sluice::test::Headers echo = {{"x-mock-script", R"({"echo":true})"}};
  for (const auto& [path, model] : std::vector<std::pair<std::string, std::string>>{{kMessages, "raw"}, {kChat, "raw-chat"}}) {
    BOOST_TEST_CONTEXT(path) {
      // Spacing and member order a re-encoding would change.
      std::string body = request(path, model, false).dump(1);
      auto response = gateway.call("POST", path, echo, body);
      BOOST_REQUIRE_EQUAL(response.status, 200);
      BOOST_TEST(response.json()["body"].get<std::string>() == body);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_undecodable_body_is_never_sent_to_a_masked_tier) {
  // Bodies the passthrough lane would forward as they are, but the gateway's model cannot hold.
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> bodies = {
      {kMessages, {"pub", R"({"model":"pub","max_tokens":20,"messages":[{"role":"wizard","content":")" + kUserText + R"("}]})"}},
      {kChat, {"pub-chat", R"({"model":"pub-chat","messages":[{"role":"user","content":42},{"role":"user","content":")" + kUserText + R"("}]})"}},
      {kResponses, {"pub-resp", R"({"model":"pub-resp","input":[{"type":"message","role":"wizard","content":")" + kUserText + R"("}]})"}},
  };
  for (const auto& [path, target] : bodies) {
    BOOST_TEST_CONTEXT(path) {
      reset();
      auto response = gateway.call("POST", path, {}, target.second);
      BOOST_TEST(response.status == 400);
      BOOST_TEST(errorKey(path, response.json()) == "data_protection_failed");
      BOOST_TEST(response.body.find(kEmail) == std::string::npos);
      BOOST_TEST(gateway.mockJson("/_mock/stats")["totals"]["requests"] == 0);  // nothing sent anywhere
      const json row = this->row(response);
      BOOST_REQUIRE(row.is_object());
      BOOST_TEST(row["outcome"] == "data_protection_failed");
      BOOST_TEST(row["error_key"] == "data_protection_failed");
      BOOST_TEST(attemptResults(row).find("=skipped:data_protection") != std::string::npos);
      BOOST_TEST(row.dump().find(kEmail) == std::string::npos);  // the reason quotes nothing
    }
  }
  // A chain: the local box gets the body as it came (and fails), the public attempt is skipped.
  reset();
  const std::string body = R"({"model":"chain","max_tokens":20,"messages":[{"role":"wizard","content":"hi )" + kEmail + R"("}]})";
  auto response = gateway.call("POST", kMessages, {{"x-mock-script", R"({"status":503})"}}, body);
  BOOST_TEST(response.status == 400);
  BOOST_TEST(errorKey(kMessages, response.json()) == "data_protection_failed");
  BOOST_TEST(received("/local/v1/messages").size() == 1u);
  BOOST_TEST(received("/pub/v1/messages").empty());
  const json row = this->row(response);
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(attemptResults(row) == "local-box/api=status_503,public-anthropic/api=skipped:data_protection");
}

BOOST_AUTO_TEST_CASE(a_blocked_kind_never_reaches_a_public_deployment) {
  const std::string key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7Lq\n"
                          "-----END RSA PRIVATE KEY-----";
  const std::string text = "Why does this key fail? " + key;
  for (const auto& path : kPaths) {
    BOOST_TEST_CONTEXT(path) {
      reset();
      const std::string model = path == kMessages ? "pub" : path == kChat ? "pub-chat" : "pub-resp";
      auto response = gateway.call("POST", path, {}, request(path, model, false, text).dump());
      BOOST_TEST(response.status == 400);
      BOOST_TEST(errorKey(path, response.json()) == "data_protection_blocked");
      BOOST_TEST(response.body.find("private_key") != std::string::npos);
      BOOST_TEST(gateway.mockJson("/_mock/stats")["totals"]["requests"] == 0);
      const json row = this->row(response);
      BOOST_REQUIRE(row.is_object());
      BOOST_TEST(row["outcome"] == "data_protection_blocked");
    }
  }
  // A trusted_masked deployment still gets it, masked: after a skipped public one, or first.
  for (const std::string model : {"pub-or-eu", "eu-or-pub"}) {
    BOOST_TEST_CONTEXT(model) {
      reset();
      auto response = gateway.call("POST", kMessages, {}, request(kMessages, model, false, text).dump());
      BOOST_REQUIRE_EQUAL(response.status, 200);
      BOOST_TEST(wholeAnswer(kMessages, response.json()).text == text);
      BOOST_TEST(received("/pub/v1/messages").empty());
      const auto eu = received("/eu/v1/messages");
      BOOST_REQUIRE_EQUAL(eu.size(), 1u);
      BOOST_TEST(eu[0]["body"].get<std::string>().find("MIIEowIBAAKCAQEA") == std::string::npos);
      BOOST_TEST(eu[0]["body"].get<std::string>().find("PRIVATE_KEY_1") != std::string::npos);
      const json row = this->row(response);
      BOOST_REQUIRE(row.is_object());
      BOOST_TEST(attemptResults(row) == (model == "pub-or-eu" ? "public-anthropic/api=skipped:data_protection_blocked,eu/api=ok"
                                                               : "eu/api=ok"));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_audit_row_the_metric_and_sluicectl_count_what_was_masked_never_the_values) {
  auto masked = gateway.call("POST", kMessages, {}, request(kMessages, "pub", false).dump());
  BOOST_REQUIRE_EQUAL(masked.status, 200);
  auto raw = gateway.call("POST", kMessages, {{"x-mock-script", R"({"echo":true})"}}, request(kMessages, "raw", false).dump());
  BOOST_REQUIRE_EQUAL(raw.status, 200);
  // Occurrences per kind: the tool's e-mail and the user's twice, the deploy key and the API key, ...
  const json expected = json::parse(R"({"api_key":2,"email":3,"password":1,"payment_card":1,"vault":1})");
  const json row = this->row(masked);
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["masked"] == expected, row["masked"].dump());
  for (const auto& original : kOriginals) BOOST_TEST(row.dump().find(original) == std::string::npos, original);
  const json raw_row = this->row(raw);
  BOOST_REQUIRE(raw_row.is_object());
  BOOST_TEST(raw_row["masked"].is_null());  // trusted_raw: nothing masked

  const std::string metrics = gateway.call("GET", "/metrics").body;
  BOOST_TEST(metrics.find("sluice_data_protection_masked_total{kind=\"email\",tier=\"public\"} 3\n") != std::string::npos,
             metrics);
  BOOST_TEST(metrics.find("sluice_data_protection_masked_total{kind=\"api_key\",tier=\"public\"} 2\n") != std::string::npos);
  BOOST_TEST(metrics.find("gateway_overhead_seconds_count{lane=\"masked\"} 1\n") != std::string::npos);
  BOOST_TEST(metrics.find("gateway_overhead_seconds_count{lane=\"passthrough\"} 1\n") != std::string::npos);

  int code = -1;
  const std::string printed = sluice::test::capture(sluice::test::binPath("sluicectl") + " --database-url '" +
                                                        testDatabaseUrl() + "' audit " +
                                                        masked.header("x-sluice-request-id") + " 2>&1",
                                                    &code);
  BOOST_TEST(code == 0, printed);
  BOOST_TEST(printed.find("masked              api_key 2, email 3, password 1, payment_card 1, vault 1\n") !=
                 std::string::npos,
             printed);
}

BOOST_AUTO_TEST_CASE(count_tokens_never_asks_a_masked_tier) {
  reset();
  auto response = gateway.call("POST", "/v1/messages/count_tokens", {},
                               R"({"model":"pub","messages":[{"role":"user","content":")" + kUserText + R"("}]})");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(response.json()["input_tokens"].get<int>() > 0);  // the gateway's estimate
  BOOST_TEST(gateway.mockJson("/_mock/stats")["totals"]["requests"] == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(data_protection_settings)

BOOST_AUTO_TEST_CASE(restore_false_leaves_the_placeholders_in_the_answer) {
  Gateway gateway(options(editedCatalog("restore: true", "restore: false")));
  for (const bool stream : {false, true}) {
    BOOST_TEST_CONTEXT((stream ? "streamed" : "unstreamed")) {
      const std::string body = request(kMessages, "pub", stream).dump();
      std::string text;
      if (stream) {
        auto result = gateway.stream(kMessages, {}, body);
        BOOST_REQUIRE_EQUAL(result.status, 200);
        text = streamedAnswer(kMessages, result.body).text;
      } else {
        auto response = gateway.call("POST", kMessages, {}, body);
        BOOST_REQUIRE_EQUAL(response.status, 200);
        text = wholeAnswer(kMessages, response.json()).text;
      }
      BOOST_TEST(text.find(kOpen + "EMAIL_2" + "\xE2\x9F\xA7") != std::string::npos, text);  // EMAIL_1 is the tool's
      for (const auto& original : kOriginals) BOOST_TEST(text.find(original) == std::string::npos, original);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
