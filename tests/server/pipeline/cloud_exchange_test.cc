// Vertex AI and Azure (platform: vertex, platform: azure) on the request path, in-process: the
// calls the gateway sends (paths, bodies, headers), the OAuth tokens it fetches for them through
// the same transport (a service account's JWT grant checked with its public key, Entra ID client
// credentials), the token cache, and a token that cannot be had failing over.
#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/wire/sse.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

struct RsaKey {
  std::string private_pem, public_pem;
};

// One key for the whole suite (generating one takes a while).
const RsaKey& serviceAccountKey() {
  static const RsaKey key = [] {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(EVP_RSA_gen(2048), EVP_PKEY_free);
    BOOST_REQUIRE(pkey);
    auto pem = [&](bool is_private) {
      std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
      if (is_private) {
        PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr);
      } else {
        PEM_write_bio_PUBKEY(bio.get(), pkey.get());
      }
      char* data = nullptr;
      const long size = BIO_get_mem_data(bio.get(), &data);
      return std::string(data, static_cast<size_t>(size));
    };
    return RsaKey{pem(true), pem(false)};
  }();
  return key;
}

std::string keyFile(const std::string& token_uri = "https://oauth.example/token") {
  return nlohmann::json{{"type", "service_account"},
                        {"project_id", "acme-ml"},
                        {"private_key_id", "kid-1"},
                        {"private_key", serviceAccountKey().private_pem},
                        {"client_email", "sluice@acme-ml.iam.gserviceaccount.com"},
                        {"token_uri", token_uri}}
      .dump();
}

std::shared_ptr<const catalog::Catalog> cloudCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  gcp-main: { kind: platform, gcp: { service_account: file:/etc/sluice/gcp-sa.json } }
  azure-key: { kind: platform, azure: { api_key: env:AZURE_KEY } }
  azure-entra:
    kind: platform
    azure: { tenant_id: acme.onmicrosoft.com, client_id: client-1, client_secret: env:ENTRA_SECRET }
  second: { kind: platform, secret: env:SECOND_KEY }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  vertex-eu:
    credential: gcp-main
    platform: vertex
    project: acme-ml
    region: europe-west1
    endpoints:
      claude: { wire: anthropic, url: "https://vertex.example" }
      gemini: { wire: gemini, url: "https://vertex.example" }
  azure-sweden:
    credential: azure-key
    platform: azure
    endpoints:
      chat: { wire: openai-chat, url: "https://azure.example" }
      responses: { wire: openai-responses, url: "https://azure.example" }
      classic: { wire: openai-chat, api_version: "2024-10-21", url: "https://azure.example" }
      claude: { wire: anthropic, url: "https://foundry.example" }
  azure-entra:
    credential: azure-entra
    platform: azure
    retry: { attempts: 0 }
    endpoints:
      chat: { wire: openai-chat, url: "https://entra.example" }
  second:
    credential: second
    endpoints:
      api: { wire: anthropic, url: "https://second.example" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  claude: {}
  gemini: {}
  gpt: {}
  gpt-responses: {}
  gpt-classic: {}
  foundry-claude: {}
  entra-gpt: {}
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  claude:
    - { endpoint: vertex-eu/claude, upstream_model: "claude-sonnet-4-5@20250929" }
    - second/api
  gemini:
    - { endpoint: vertex-eu/gemini, upstream_model: gemini-2.5-pro }
  gpt:
    - { endpoint: azure-sweden/chat, upstream_model: gpt-4o-prod }
  gpt-responses:
    - { endpoint: azure-sweden/responses, upstream_model: gpt-4o-prod }
  gpt-classic:
    - { endpoint: azure-sweden/classic, upstream_model: gpt-4o-prod }
  foundry-claude:
    - { endpoint: azure-sweden/claude, upstream_model: claude-opus-4-1 }
  entra-gpt:
    - { endpoint: azure-entra/chat, upstream_model: gpt-4o-prod }
    - second/api
)"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", "gateway:\n  default_model: claude\n"};
  sources.env = {{"AZURE_KEY", "azure-key-1"}, {"ENTRA_SECRET", "entra-secret-1"}, {"SECOND_KEY", "sk-second"}};
  sources.secret_files = {{"/etc/sluice/gcp-sa.json", keyFile()}};
  auto result = catalog::compileCatalog(sources);
  if (!result.ok()) {
    for (const auto& diagnostic : result.diagnostics) BOOST_TEST_MESSAGE(diagnostic.format());
  }
  BOOST_REQUIRE(result.ok());
  return result.catalog;
}

std::string path(const upstream::Request& request) {
  return request.url.substr(request.url.find('/', std::string("https://").size()));
}

std::string base64UrlDecode(std::string_view text) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const size_t value = alphabet.find(c);
    BOOST_REQUIRE(value != std::string_view::npos);
    bits = (bits << 6) | static_cast<uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

std::map<std::string, std::string> form(const std::string& body) {
  std::map<std::string, std::string> fields;
  size_t at = 0;
  while (at < body.size()) {
    const size_t amp = std::min(body.find('&', at), body.size());
    const std::string pair = body.substr(at, amp - at);
    const size_t eq = pair.find('=');
    std::string value;
    for (size_t i = eq + 1; i < pair.size(); ++i) {
      if (pair[i] == '%' && i + 2 < pair.size() + 0) {
        value += static_cast<char>(std::stoi(pair.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        value += pair[i];
      }
    }
    fields[pair.substr(0, eq)] = value;
    at = amp + 1;
  }
  return fields;
}

// The JWT's RS256 signature checked with the service account's public key, as Google does.
bool signatureHolds(const std::string& jwt) {
  const size_t last = jwt.rfind('.');
  const std::string signing_input = jwt.substr(0, last);
  const std::string signature = base64UrlDecode(jwt.substr(last + 1));
  const std::string& pem = serviceAccountKey().public_pem;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  return key && EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
         EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

std::string tokenAnswer(const std::string& token, int expires_in = 3600) {
  return nlohmann::json{{"access_token", token}, {"expires_in", expires_in}, {"token_type", "Bearer"}}.dump();
}

std::vector<std::string> results(const audit::Record& row) {
  std::vector<std::string> out;
  for (const auto& attempt : row.attempts) out.push_back(attempt.endpoint + " " + attempt.result);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cloud_exchange)

BOOST_AUTO_TEST_CASE(vertex_claude_gets_a_raw_predict_call_with_a_token_from_a_signed_service_account_grant) {
  RequestPath gateway(cloudCatalog());
  gateway.transport.script("oauth.example", FakeTransport::json(200, tokenAnswer("ya29.token-1")));
  gateway.transport.script("vertex.example", FakeTransport::json(200, anthropicAnswer("from vertex")).repeating());
  const auto before = std::chrono::system_clock::now();
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude"),
                                   {{"anthropic-version", "2023-06-01"}, {"anthropic-beta", "tools-x, context-y"}});
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "from vertex");
  auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  // The grant: a JWT bearer assertion signed RS256 with the service account's key.
  BOOST_TEST(sent[0].url == "https://oauth.example/token");
  BOOST_TEST(sentHeader(sent[0], "content-type") == "application/x-www-form-urlencoded");
  const auto grant = form(sent[0].body);
  BOOST_TEST(grant.at("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer");
  const std::string jwt = grant.at("assertion");
  BOOST_TEST(signatureHolds(jwt));
  const auto header = nlohmann::json::parse(base64UrlDecode(jwt.substr(0, jwt.find('.'))));
  BOOST_TEST(header == nlohmann::json({{"alg", "RS256"}, {"typ", "JWT"}, {"kid", "kid-1"}}));
  const auto claims = nlohmann::json::parse(base64UrlDecode(jwt.substr(jwt.find('.') + 1, jwt.rfind('.') - jwt.find('.') - 1)));
  BOOST_TEST(claims["iss"] == "sluice@acme-ml.iam.gserviceaccount.com");
  BOOST_TEST(claims["aud"] == "https://oauth.example/token");
  BOOST_TEST(claims["scope"] == "https://www.googleapis.com/auth/cloud-platform");
  const int64_t iat = claims["iat"];
  BOOST_TEST(iat >= std::chrono::system_clock::to_time_t(before) - 1);
  BOOST_TEST(claims["exp"].get<int64_t>() == iat + 3600);
  // The call: rawPredict on the regional path, the body without model, the token as a bearer.
  BOOST_TEST(path(sent[1]) ==
             "/v1/projects/acme-ml/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict");
  const auto body = nlohmann::json::parse(sent[1].body);
  BOOST_TEST(!body.contains("model"));
  BOOST_TEST(body["anthropic_version"] == "vertex-2023-10-16");
  BOOST_TEST(body["anthropic_beta"] == nlohmann::json({"tools-x", "context-y"}));
  BOOST_TEST(body["max_tokens"] == 50);
  BOOST_TEST(sentHeader(sent[1], "authorization") == "Bearer ya29.token-1");
  BOOST_TEST(sentHeader(sent[1], "x-api-key").empty());
  BOOST_TEST(sentHeader(sent[1], "anthropic-version").empty());
  BOOST_TEST(gateway.onlyRow().served_endpoint == "vertex-eu/claude");
  // The token is cached: a second request fetches none.
  BOOST_TEST(gateway.send("POST", "/v1/messages", messagesBody("claude", true)).status == 200);
  sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);
  BOOST_TEST(path(sent[2]).ends_with(":streamRawPredict"));
  BOOST_TEST(nlohmann::json::parse(sent[2].body)["stream"] == true);
  BOOST_TEST(sentHeader(sent[2], "authorization") == "Bearer ya29.token-1");
}

BOOST_AUTO_TEST_CASE(gemini_on_vertex_is_addressed_under_the_google_publisher) {
  RequestPath gateway(cloudCatalog());
  gateway.transport.script("oauth.example", FakeTransport::json(200, tokenAnswer("ya29.token-2")));
  const std::string answer =
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"from gemini"}]},"finishReason":"STOP"}],)"
      R"("usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}})";
  gateway.transport.script("vertex.example", FakeTransport::json(200, answer));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("gemini"));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "from gemini");
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  BOOST_TEST(path(sent[1]) ==
             "/v1/projects/acme-ml/locations/europe-west1/publishers/google/models/gemini-2.5-pro:generateContent");
  BOOST_TEST(sentHeader(sent[1], "authorization") == "Bearer ya29.token-2");
  BOOST_TEST(sentHeader(sent[1], "x-goog-api-key").empty());
}

BOOST_AUTO_TEST_CASE(a_token_that_cannot_be_had_fails_the_attempt_over_with_the_reason_in_the_row) {
  RequestPath gateway(cloudCatalog());
  gateway.transport.script("oauth.example", FakeTransport::json(400, R"({"error":"invalid_grant","error_description":"x"})"));
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude"));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "from second");
  const auto row = gateway.onlyRow();
  BOOST_TEST(results(row) == (std::vector<std::string>{"vertex-eu/claude skipped:credential_unavailable", "second/api ok"}),
             boost::test_tools::per_element());
  BOOST_TEST(row.attempts[0].error == "vertex-eu/claude: Google token endpoint: the token endpoint answered 400 invalid_grant");
  const auto standing = gateway.gateway().cloudAuth().standing(*gateway.gateway().catalog());
  const auto gcp = std::ranges::find(standing, std::string("gcp-main"), &cloud::CloudAuth::Standing::id);
  BOOST_REQUIRE(gcp != standing.end());
  BOOST_TEST(!gcp->usable);
  BOOST_TEST(gcp->detail.find("invalid_grant") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(azure_v1_classic_and_foundry_calls_carry_the_api_key) {
  RequestPath gateway(cloudCatalog());
  const std::string chat_answer =
      R"({"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant",)"
      R"("content":"from azure"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})";
  gateway.transport.script("azure.example", FakeTransport::json(200, chat_answer).repeating());
  gateway.transport.script("foundry.example", FakeTransport::json(200, anthropicAnswer("from foundry")));
  const std::string chat = R"({"model":"gpt","messages":[{"role":"user","content":"hi"}]})";
  BOOST_TEST(gateway.send("POST", "/v1/chat/completions", chat, {{"authorization", "Bearer x"}}).status == 200);
  const std::string classic = R"({"model":"gpt-classic","messages":[{"role":"user","content":"hi"}]})";
  BOOST_TEST(gateway.send("POST", "/v1/chat/completions", classic, {{"authorization", "Bearer x"}}).status == 200);
  const Reply foundry = gateway.send("POST", "/v1/messages", messagesBody("foundry-claude"));
  BOOST_TEST(foundry.status == 200);
  BOOST_TEST(foundry.json()["content"][0]["text"] == "from foundry");
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);
  BOOST_TEST(path(sent[0]) == "/openai/v1/chat/completions");
  BOOST_TEST(nlohmann::json::parse(sent[0].body)["model"] == "gpt-4o-prod");
  BOOST_TEST(path(sent[1]) == "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
  BOOST_TEST(path(sent[2]) == "/anthropic/v1/messages");
  BOOST_TEST(nlohmann::json::parse(sent[2].body)["model"] == "claude-opus-4-1");
  for (const auto& request : sent) {
    BOOST_TEST(sentHeader(request, "api-key") == "azure-key-1");
    BOOST_TEST(sentHeader(request, "authorization").empty());
    BOOST_TEST(sentHeader(request, "x-api-key").empty());
  }
}

BOOST_AUTO_TEST_CASE(azure_responses_use_the_v1_path) {
  RequestPath gateway(cloudCatalog());
  gateway.transport.script("azure.example", FakeTransport::json(500, R"({"error":{"message":"x"}})"));
  const std::string body = R"({"model":"gpt-responses","input":"hi"})";
  gateway.send("POST", "/v1/responses", body, {{"authorization", "Bearer x"}});
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE(!sent.empty());
  BOOST_TEST(path(sent[0]) == "/openai/v1/responses");
}

BOOST_AUTO_TEST_CASE(entra_client_credentials_are_exchanged_at_the_authority_for_a_bearer_token) {
  RequestPath gateway(cloudCatalog());
  gateway.gateway().cloudAuth().setEnvironment(
      [](const char* name) { return std::string(name) == "AZURE_AUTHORITY_HOST" ? "https://login.example/" : ""; },
      [](const std::string&) { return std::nullopt; });
  gateway.transport.script("login.example", FakeTransport::json(200, tokenAnswer("entra-token-1")));
  gateway.transport.script("entra.example", FakeTransport::json(429, R"({"error":{"code":"429","message":"slow"}})"));
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const std::string chat = R"({"model":"entra-gpt","messages":[{"role":"user","content":"hi"}]})";
  BOOST_TEST(gateway.send("POST", "/v1/chat/completions", chat, {{"authorization", "Bearer x"}}).status == 200);
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);
  BOOST_TEST(sent[0].url == "https://login.example/acme.onmicrosoft.com/oauth2/v2.0/token");
  const auto grant = form(sent[0].body);
  BOOST_TEST(grant.at("grant_type") == "client_credentials");
  BOOST_TEST(grant.at("client_id") == "client-1");
  BOOST_TEST(grant.at("client_secret") == "entra-secret-1");
  BOOST_TEST(grant.at("scope") == "https://cognitiveservices.azure.com/.default");
  BOOST_TEST(sentHeader(sent[1], "authorization") == "Bearer entra-token-1");
  BOOST_TEST(path(sent[1]) == "/openai/v1/chat/completions");
  // A 429 from Azure fails over like any provider's.
  BOOST_TEST(results(gateway.onlyRow()) == (std::vector<std::string>{"azure-entra/chat status_429", "second/api ok"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
