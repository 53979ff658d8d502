// Google Vertex AI and Azure OpenAI / AI Foundry through the real gateway and the mock provider,
// whose token endpoints check the real flows (the service-account JWT's RS256 signature against
// the key's public half and its claims; the metadata server's Metadata-Flavor; Entra ID's client
// secret and federated assertion) and whose Vertex and Azure answer only with a live token, the
// platform's URLs and bodies. Tokens live 3 s, so refresh is exercised. The catalog is
// tests/integration/catalogs/clouds.

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/sse.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::attemptResultsOf;
using sluice::test::auditRow;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

namespace fs = std::filesystem;

std::string newRsaKeyPem() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(length));
}

void writeKeyFile(const fs::path& path, const std::string& pem, const std::string& token_uri) {
  std::ofstream(path) << json{{"type", "service_account"},
                              {"project_id", "acme-ml"},
                              {"private_key_id", "0123abcd"},
                              {"private_key", pem},
                              {"client_email", "sluice@acme-ml.iam.gserviceaccount.com"},
                              {"token_uri", token_uri}}
                             .dump(2);
}

struct Fixture {
  Fixture() : dir(makeDir()), url(testDatabaseUrl()), gateway(options(dir, url)) {}

  static fs::path makeDir() {
    const fs::path dir = fs::temp_directory_path() / ("sluice-it-clouds-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string pem = newRsaKeyPem();
    writeKeyFile(dir / "gcp-sa.json", pem, "http://unset/token");
    writeKeyFile(dir / "gcp-sa-other.json", newRsaKeyPem(), "http://unset/token");
    std::ofstream(dir / "federated-token") << "eyJhbGciOiJSUzI1NiJ9.projected-service-account-token.sig\n";
    return dir;
  }

  static GatewayOptions options(const fs::path& dir, const std::string& database_url) {
    GatewayOptions options;
    options.services = sluice::test::sourceDir() + "/tests/integration/catalogs/clouds";
    options.extra_args = {"--database-url", database_url, "--audit-spool",
                          "/tmp/sluice-it-clouds-spool-" + std::to_string(::getpid())};
    options.mock_args = {"--gcp-service-account", (dir / "gcp-sa.json").string(), "--token-lifetime", "3",
                         "--azure-client-secret", "entra-secret-it", "--azure-federated-token-file",
                         (dir / "federated-token").string()};
    options.on_mock_started = [dir](const std::string& mock) {
      // The key files' token_uri is the mock's Google token endpoint (the JWT's audience).
      for (const char* name : {"gcp-sa.json", "gcp-sa-other.json"}) {
        std::ifstream in(dir / name);
        json file = json::parse(in);
        file["token_uri"] = mock + "/token";
        std::ofstream(dir / name) << file.dump(2);
      }
      const std::string host = mock.substr(mock.find("://") + 3);
      return std::vector<std::pair<std::string, std::string>>{
          {"MOCK_URL", mock}, {"GCE_METADATA_HOST", host}, {"AZURE_AUTHORITY_HOST", mock}};
    };
    options.extra_env = {{"CLOUDS_DIR", dir.string()},
                         {"AZURE_OPENAI_API_KEY", "azure-key-it"},
                         {"AZURE_CLIENT_SECRET", "entra-secret-it"},
                         {"AZURE_FEDERATED_TOKEN_FILE", (dir / "federated-token").string()},
                         {"AZURE_TENANT_ID", "mock-tenant"},
                         {"AZURE_CLIENT_ID", "mock-client"}};
    return options;
  }

  ~Fixture() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  sluice::test::HttpResponse anthropic(const std::string& model, const std::string& script = "") {
    sluice::test::Headers headers{{"anthropic-version", "2023-06-01"}};
    if (!script.empty()) headers.emplace_back("x-mock-script", script);
    return gateway.call("POST", "/v1/messages", headers,
                        R"({"model":")" + model + R"(","max_tokens":50,"messages":[{"role":"user","content":"hi"}]})");
  }
  sluice::test::HttpResponse chat(const std::string& model, const std::string& script = "") {
    sluice::test::Headers headers;
    if (!script.empty()) headers.emplace_back("x-mock-script", script);
    return gateway.call("POST", "/v1/chat/completions", headers,
                        R"({"model":")" + model + R"(","messages":[{"role":"user","content":"hi"}]})");
  }
  sluice::test::StreamResult chatStream(const std::string& model) {
    return gateway.stream("/v1/chat/completions", {},
                          R"({"model":")" + model + R"(","stream":true,"messages":[{"role":"user","content":"hi"}]})");
  }
  // The provider requests (and token requests) the mock received, oldest first.
  json requestsTo(const std::string& path_part) {
    json out = json::array();
    for (const auto& request : gateway.mockJson("/_mock/requests")) {
      if (request["path"].get<std::string>().find(path_part) != std::string::npos) out.push_back(request);
    }
    return out;
  }
  // Those at exactly `path`.
  json requestsAt(const std::string& path) {
    json out = json::array();
    for (const auto& request : gateway.mockJson("/_mock/requests")) {
      if (request["path"] == path) out.push_back(request);
    }
    return out;
  }
  json row(const std::string& request_id) { return auditRow(url, request_id); }

  fs::path dir;
  std::string url;
  Gateway gateway;
};

std::string chatStreamText(const std::string& body) {
  std::string text;
  for (const auto& event : sluice::test::parseSse(body)) {
    if (event.data == "[DONE]") continue;
    const json data = json::parse(event.data);
    for (const auto& choice : data["choices"]) {
      if (choice["delta"].contains("content") && choice["delta"]["content"].is_string()) {
        text += choice["delta"]["content"].get<std::string>();
      }
    }
  }
  return text;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(clouds, Fixture)

BOOST_AUTO_TEST_CASE(vertex_claude_is_reached_with_a_verified_service_account_token_and_vertex_bodies) {
  const auto whole = anthropic("claude-vertex");
  BOOST_REQUIRE_EQUAL(whole.status, 200);
  BOOST_TEST(whole.json()["content"][0]["text"] == "Hello from the mock provider (claude-sonnet-4-5@20250929).");
  const json grants = requestsAt("/token");
  BOOST_REQUIRE_EQUAL(grants.size(), 1u);
  BOOST_TEST(grants[0]["body"].get<std::string>().starts_with(
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="));
  const json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] ==
             "/v1/projects/acme-ml/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict");
  BOOST_TEST(!sent["json"].contains("model"));
  BOOST_TEST(sent["json"]["anthropic_version"] == "vertex-2023-10-16");
  BOOST_TEST(sent["headers"]["authorization"].get<std::string>().starts_with("Bearer ya29.mock-"));
  BOOST_TEST(!sent["headers"].contains("x-api-key"));

  // A chat client, streamed: translated, on :streamRawPredict, with the token in hand.
  const auto streamed = chatStream("claude-vertex");
  BOOST_REQUIRE_EQUAL(streamed.status, 200);
  BOOST_TEST(chatStreamText(streamed.body) == "Hello from the mock provider (claude-sonnet-4-5@20250929).");
  BOOST_TEST(gateway.mockJson("/_mock/last")["path"].get<std::string>().ends_with(":streamRawPredict"));
  BOOST_TEST(requestsAt("/token").size() == 1u);
  BOOST_TEST(attemptResultsOf(row(whole.header("x-sluice-request-id"))) == "vertex/claude=ok");
}

BOOST_AUTO_TEST_CASE(vertex_counts_claudes_tokens_at_count_tokens_raw_predict) {
  const auto counted = gateway.call("POST", "/v1/messages/count_tokens", {{"anthropic-version", "2023-06-01"}},
                                    R"({"model":"claude-vertex","messages":[{"role":"user","content":"count these words"}]})");
  BOOST_REQUIRE_EQUAL(counted.status, 200);
  BOOST_TEST(counted.json()["input_tokens"].get<int>() > 0);
  const json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] ==
             "/v1/projects/acme-ml/locations/europe-west1/publishers/anthropic/models/count-tokens:rawPredict");
  BOOST_TEST(sent["json"]["model"] == "claude-sonnet-4-5@20250929");
  BOOST_TEST(sent["json"]["anthropic_version"] == "vertex-2023-10-16");
  BOOST_TEST(sent["headers"]["authorization"].get<std::string>().starts_with("Bearer ya29.mock-"));
}

BOOST_AUTO_TEST_CASE(vertex_gemini_streams_on_stream_generate_content_with_alt_sse) {
  const auto streamed = chatStream("gemini-vertex");
  BOOST_REQUIRE_EQUAL(streamed.status, 200);
  BOOST_TEST(chatStreamText(streamed.body) == "Hello from the mock provider (gemini-2.5-flash).");
  const json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] ==
             "/v1/projects/acme-ml/locations/europe-west1/publishers/google/models/gemini-2.5-flash:streamGenerateContent");
  BOOST_TEST(sent["query"] == "alt=sse");
}

BOOST_AUTO_TEST_CASE(a_short_lived_token_is_refreshed_before_the_cloud_refuses_it) {
  BOOST_REQUIRE_EQUAL(anthropic("claude-vertex").status, 200);
  BOOST_REQUIRE_EQUAL(chat("gpt-entra").status, 200);
  // The mock's tokens live 3 s: the gateway fetches new ones past half their life, before the
  // cloud would answer 401.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  BOOST_REQUIRE_EQUAL(anthropic("claude-vertex").status, 200);
  BOOST_REQUIRE_EQUAL(chat("gpt-entra").status, 200);
  BOOST_TEST(requestsAt("/token").size() == 2u);
  BOOST_TEST(requestsTo("/mock-tenant/oauth2/v2.0/token").size() == 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(3200));  // every token has expired
  BOOST_REQUIRE_EQUAL(anthropic("claude-vertex").status, 200);
  BOOST_TEST(requestsAt("/token").size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_token_the_cloud_refuses_is_dropped_and_the_call_retried_with_a_new_one) {
  BOOST_REQUIRE_EQUAL(anthropic("claude-vertex").status, 200);
  BOOST_REQUIRE_EQUAL(chat("gpt-entra").status, 200);
  sluice::test::HttpConnection mock(gateway.mock().host(), gateway.mock().port());
  BOOST_REQUIRE_EQUAL(mock.request("POST", "/_mock/revoke-tokens").status, 200);
  // Both tokens are still within their lifetime for the gateway, but the clouds now answer 401.
  const auto vertex = anthropic("claude-vertex");
  BOOST_REQUIRE_EQUAL(vertex.status, 200);
  BOOST_TEST(attemptResultsOf(row(vertex.header("x-sluice-request-id"))) == "vertex/claude=status_401,vertex/claude=ok");
  BOOST_TEST(requestsAt("/token").size() == 2u);
  const auto azure = chat("gpt-entra");
  BOOST_REQUIRE_EQUAL(azure.status, 200);
  BOOST_TEST(requestsAt("/mock-tenant/oauth2/v2.0/token").size() == 2u);
  // An api-key the cloud refuses is not retried: the client hears the 401.
  BOOST_TEST(chat("gpt-azure", R"({"status":401})").status == 401);
}

BOOST_AUTO_TEST_CASE(the_metadata_server_gives_vertex_its_token) {
  const auto response = anthropic("claude-metadata");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json fetched = requestsTo("/computeMetadata/v1/instance/service-accounts/default/token");
  BOOST_REQUIRE_EQUAL(fetched.size(), 1u);
  BOOST_TEST(fetched[0]["headers"]["metadata-flavor"] == "Google");
  BOOST_TEST(gateway.mockJson("/_mock/last")["path"].get<std::string>().starts_with(
      "/v1/projects/acme-ml/locations/global/publishers/anthropic/models/claude-haiku-4-5@20251001"));
}

BOOST_AUTO_TEST_CASE(azure_v1_classic_responses_and_foundry_paths_carry_the_api_key) {
  BOOST_REQUIRE_EQUAL(chat("gpt-azure").status, 200);
  json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] == "/openai/v1/chat/completions");
  BOOST_TEST(sent["json"]["model"] == "gpt-4o-deploy");
  BOOST_TEST(sent["headers"]["api-key"] == "azure-key-it");
  BOOST_TEST(!sent["headers"].contains("authorization"));

  BOOST_REQUIRE_EQUAL(anthropic("gpt-azure-classic").status, 200);
  sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] == "/openai/deployments/gpt-4o-classic/chat/completions");
  BOOST_TEST(sent["query"] == "api-version=2024-10-21");

  const auto responses = gateway.call("POST", "/v1/responses", {}, R"({"model":"gpt-azure-responses","input":"hi"})");
  BOOST_REQUIRE_EQUAL(responses.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["path"] == "/openai/v1/responses");

  const auto foundry = chat("claude-foundry");
  BOOST_REQUIRE_EQUAL(foundry.status, 200);
  BOOST_TEST(foundry.json()["choices"][0]["message"]["content"] == "Hello from the mock provider (claude-sonnet-4-5).");
  sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] == "/anthropic/v1/messages");
  BOOST_TEST(sent["headers"]["api-key"] == "azure-key-it");

  // Azure streams a prompt-filter chunk without choices first: passed through to a chat client,
  // skipped when translated for an Anthropic one.
  const auto streamed = chatStream("gpt-azure");
  BOOST_REQUIRE_EQUAL(streamed.status, 200);
  BOOST_TEST(chatStreamText(streamed.body) == "Hello from the mock provider (gpt-4o-deploy).");
  const auto translated = gateway.stream(
      "/v1/messages", {{"anthropic-version", "2023-06-01"}},
      R"({"model":"gpt-azure","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(translated.status, 200);
  std::string text;
  for (const auto& event : sluice::test::parseSse(translated.body)) {
    if (event.event != "content_block_delta") continue;
    const json data = json::parse(event.data);
    if (data["delta"].contains("text")) text += data["delta"]["text"].get<std::string>();
  }
  BOOST_TEST(text == "Hello from the mock provider (gpt-4o-deploy).");
  BOOST_TEST(sluice::test::parseSse(translated.body).back().event == "message_stop");
}

BOOST_AUTO_TEST_CASE(entra_client_credentials_and_workload_identity_authorise_azure) {
  BOOST_REQUIRE_EQUAL(chat("gpt-entra").status, 200);
  const json grant = requestsTo("/mock-tenant/oauth2/v2.0/token").at(0);
  BOOST_TEST(grant["body"].get<std::string>().find("client_secret=entra-secret-it") != std::string::npos);
  BOOST_TEST(gateway.mockJson("/_mock/last")["headers"]["authorization"].get<std::string>().starts_with(
      "Bearer mock-entra-"));

  const auto responses = gateway.call("POST", "/v1/responses", {}, R"({"model":"gpt-aks","input":"hi"})");
  BOOST_REQUIRE_EQUAL(responses.status, 200);
  const json grants = requestsTo("/mock-tenant/oauth2/v2.0/token");
  BOOST_REQUIRE_EQUAL(grants.size(), 2u);
  BOOST_TEST(grants[1]["body"].get<std::string>().find("client_assertion=eyJhbGciOiJSUzI1NiJ9.projected") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_chain_fails_over_from_azure_to_vertex_to_bedrock) {
  const auto response = anthropic("cross-cloud");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(response.json()["content"][0]["text"] ==
             "Hello from the mock provider (us.anthropic.claude-sonnet-4-5-20250929-v1:0).");
  const json audit = row(response.header("x-sluice-request-id"));
  BOOST_TEST(attemptResultsOf(audit) ==
             "azure-down/chat=status_503,vertex-other-key/claude=skipped:credential_unavailable,bedrock/claude=ok");
  const std::string reason = audit["attempts"][1]["error"].get<std::string>();
  BOOST_TEST(reason.find("Google token endpoint: the token endpoint answered 400 invalid_grant") != std::string::npos,
             reason);
  BOOST_TEST(reason.find("PRIVATE KEY") == std::string::npos);

  const auto refused = chat("entra-refused");
  BOOST_REQUIRE_EQUAL(refused.status, 200);
  BOOST_TEST(attemptResultsOf(row(refused.header("x-sluice-request-id"))) ==
             "azure-other-tenant/chat=skipped:credential_unavailable,vertex/claude=ok");
}

BOOST_AUTO_TEST_CASE(azures_content_filter_is_a_refusal_in_the_clients_format_never_a_failover) {
  const auto prompt = anthropic("filtered-then-bedrock", R"({"status":400,"error_code":"content_filter"})");
  BOOST_REQUIRE_EQUAL(prompt.status, 400);
  BOOST_TEST(prompt.json()["type"] == "error");
  BOOST_TEST(prompt.json()["error"]["message"].get<std::string>().find("content management policy") != std::string::npos);
  BOOST_TEST(requestsTo("/model/").empty());  // Bedrock was never asked
  BOOST_TEST(attemptResultsOf(row(prompt.header("x-sluice-request-id"))) == "azure/chat=status_400");

  const auto completion = anthropic("filtered-then-bedrock", R"({"finish":"content_filter"})");
  BOOST_REQUIRE_EQUAL(completion.status, 200);
  BOOST_TEST(completion.json()["stop_reason"] == "refusal");
  const auto passthrough = chat("gpt-azure", R"({"finish":"content_filter"})");
  BOOST_TEST(passthrough.json()["choices"][0]["finish_reason"] == "content_filter");
}

BOOST_AUTO_TEST_CASE(readyz_says_which_cloud_credentials_hold_a_token_and_never_a_secret) {
  BOOST_REQUIRE_EQUAL(anthropic("claude-vertex").status, 200);
  const auto ready = gateway.call("GET", "/readyz");
  const json clouds = ready.json()["cloud_credentials"];
  BOOST_TEST(clouds["gcp"]["usable"] == true);
  BOOST_TEST(clouds["azure-key"]["usable"] == true);
  BOOST_TEST(clouds["azure-entra"]["usable"] == false);  // not fetched yet
  BOOST_TEST(ready.body.find("entra-secret-it") == std::string::npos);
  BOOST_TEST(ready.body.find("azure-key-it") == std::string::npos);
  BOOST_TEST(ready.body.find("ya29.mock-") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
