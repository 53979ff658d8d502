// The mock's cloud token endpoints judge grants the way Google and Entra ID do: the gateway's own
// service-account assertion verified against the key's public half and accepted, anything
// tampered, signed by another key, for another audience, expired or without the cloud-platform
// scope refused; Entra client credentials and federated assertions checked; tokens expire.
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/cloud/google_jwt.h"
#include "tools/mock-provider/cloud_identity.h"
#include "tools/mock-provider/cloud_request.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {
namespace {

using Clock = std::chrono::system_clock;
const Clock::time_point kNow = Clock::from_time_t(1'796'000'000);
constexpr const char* kTokenUrl = "http://127.0.0.1:9000/token";

std::string newRsaKeyPem() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(length));
}

std::string keyFile(const std::string& pem) {
  return nlohmann::json{{"type", "service_account"}, {"client_email", "sluice@acme.iam.gserviceaccount.com"},
                        {"private_key_id", "kid-1"}, {"private_key", pem}, {"token_uri", kTokenUrl}}
      .dump();
}

const std::string& keyPem() {
  static const std::string pem = newRsaKeyPem();
  return pem;
}

// The form the gateway posts, built by the gateway's own code.
std::map<std::string, std::string> gatewayGrant(const std::string& key_file, Clock::time_point at = kNow) {
  auto account = cloud::parseServiceAccount(key_file);
  BOOST_TEST_REQUIRE(account.has_value());
  auto assertion = cloud::serviceAccountAssertion(*account, at);
  BOOST_TEST_REQUIRE(assertion.has_value());
  return parseForm(cloud::jwtGrantForm(*assertion));
}

GoogleAccount account() {
  auto loaded = loadGoogleAccount(keyFile(keyPem()));
  BOOST_TEST_REQUIRE(loaded.has_value());
  return *loaded;
}

std::string describe(const std::optional<OAuthError>& error) { return error ? error->error + ": " + error->description : ""; }

}  // namespace

BOOST_AUTO_TEST_SUITE(cloud_identity)

BOOST_AUTO_TEST_CASE(google_token_endpoint_accepts_the_gateways_service_account_grant) {
  const auto refused = checkGoogleGrant(gatewayGrant(keyFile(keyPem())), account(), kTokenUrl, kNow + std::chrono::seconds(5));
  BOOST_TEST(!refused.has_value(), describe(refused));
}

BOOST_AUTO_TEST_CASE(google_token_endpoint_refuses_a_grant_signed_by_another_key) {
  const auto refused = checkGoogleGrant(gatewayGrant(keyFile(newRsaKeyPem())), account(), kTokenUrl, kNow);
  BOOST_REQUIRE(refused.has_value());
  BOOST_TEST(refused->error == "invalid_grant");
  BOOST_TEST(refused->description == "Invalid JWT Signature.");
}

BOOST_AUTO_TEST_CASE(google_token_endpoint_refuses_tampered_claims) {
  auto form = gatewayGrant(keyFile(keyPem()));
  std::string& jwt = form["assertion"];
  const size_t first = jwt.find('.');
  const size_t second = jwt.find('.', first + 1);
  const std::string claims = R"({"iss":"sluice@acme.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/cloud-platform","aud":"http://127.0.0.1:9000/token","iat":1796000000,"exp":1796007200})";
  jwt = jwt.substr(0, first + 1) + cloud::base64Url(claims) + jwt.substr(second);
  const auto refused = checkGoogleGrant(form, account(), kTokenUrl, kNow);
  BOOST_REQUIRE(refused.has_value());
  BOOST_TEST(refused->description == "Invalid JWT Signature.");
}

BOOST_AUTO_TEST_CASE(google_token_endpoint_checks_audience_expiry_and_grant_type) {
  const auto other_audience = checkGoogleGrant(gatewayGrant(keyFile(keyPem())), account(), "http://127.0.0.1:9001/token", kNow);
  BOOST_REQUIRE(other_audience.has_value());
  BOOST_TEST(other_audience->description == "Invalid JWT: Failed audience check.");
  const auto expired = checkGoogleGrant(gatewayGrant(keyFile(keyPem())), account(), kTokenUrl, kNow + std::chrono::hours(2));
  BOOST_REQUIRE(expired.has_value());
  BOOST_TEST(expired->description.starts_with("Invalid JWT: Token must be a short-lived token"));
  auto form = gatewayGrant(keyFile(keyPem()));
  form["grant_type"] = "client_credentials";
  const auto wrong_grant = checkGoogleGrant(form, account(), kTokenUrl, kNow);
  BOOST_REQUIRE(wrong_grant.has_value());
  BOOST_TEST(wrong_grant->error == "unsupported_grant_type");
}

BOOST_AUTO_TEST_CASE(entra_checks_the_client_secret_the_federated_assertion_and_the_scope) {
  const EntraApp app{"tenant-1", "client-1", "s3cret", "/var/run/azure-token"};
  std::string federated = "eyJ.federated.jwt\n";
  const auto read = [&](const std::string& path) -> std::optional<std::string> {
    return path == app.federated_token_file ? std::optional(federated) : std::nullopt;
  };
  const std::string scope = "https%3A%2F%2Fcognitiveservices.azure.com%2F.default";
  const auto check = [&](std::string_view tenant, const std::string& form) {
    return checkEntraGrant(tenant, parseForm(form), app, read);
  };
  BOOST_TEST(!check("tenant-1", "grant_type=client_credentials&client_id=client-1&client_secret=s3cret&scope=" + scope));
  BOOST_TEST(check("tenant-1", "grant_type=client_credentials&client_id=client-1&client_secret=wrong&scope=" + scope)->error ==
             "invalid_client");
  BOOST_TEST(check("tenant-2", "grant_type=client_credentials&client_id=client-1&client_secret=s3cret&scope=" + scope)
                 ->description.starts_with("AADSTS90002"));
  BOOST_TEST(check("tenant-1", "grant_type=client_credentials&client_id=client-1&client_secret=s3cret&scope=openid")->error ==
             "invalid_scope");
  const std::string assertion =
      "grant_type=client_credentials&client_id=client-1&scope=" + scope +
      "&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=";
  BOOST_TEST(!check("tenant-1", assertion + "eyJ.federated.jwt"));
  federated = "eyJ.rotated.jwt";  // the file is re-read: the old assertion no longer matches
  BOOST_TEST(check("tenant-1", assertion + "eyJ.federated.jwt")->description.starts_with("AADSTS700211"));
  BOOST_TEST(!check("tenant-1", assertion + "eyJ.rotated.jwt"));
}

BOOST_AUTO_TEST_CASE(issued_tokens_expire_after_their_lifetime) {
  TokenRing ring("ya29.mock-");
  const std::string token = ring.issue(std::chrono::seconds(2), kNow);
  BOOST_TEST(ring.owns(token));
  BOOST_TEST(static_cast<int>(ring.check(token, kNow + std::chrono::seconds(1))) == static_cast<int>(TokenRing::Found::Valid));
  BOOST_TEST(static_cast<int>(ring.check(token, kNow + std::chrono::seconds(2))) == static_cast<int>(TokenRing::Found::Expired));
  BOOST_TEST(static_cast<int>(ring.check("ya29.other", kNow)) == static_cast<int>(TokenRing::Found::Unknown));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cloud_request)

ReceivedRequest call(std::string path, std::string body, HeaderList headers, std::string query = "") {
  return ReceivedRequest{"POST", std::move(path), std::move(query), std::move(headers), std::move(body)};
}

BOOST_AUTO_TEST_CASE(vertex_claude_needs_a_live_token_no_model_and_the_vertex_anthropic_version) {
  TokenRing google("ya29.mock-"), entra("mock-entra-");
  const std::string token = google.issue(std::chrono::seconds(60), kNow);
  const std::string path = "/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict";
  const auto route = matchRoute(path);
  BOOST_REQUIRE(route.has_value());
  const std::string good = R"({"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[]})";
  const auto ok = checkCloudRequest(*route, call(path, good, {{"Authorization", "Bearer " + token}}), {}, google, entra, kNow);
  BOOST_REQUIRE(!ok.refusal.has_value());
  const auto body = nlohmann::json::parse(*ok.messages_body);
  BOOST_TEST(body["model"] == "claude-sonnet-4-5@20250929");
  BOOST_TEST(body["stream"] == true);
  BOOST_TEST(!body.contains("anthropic_version"));

  const auto expired = checkCloudRequest(*route, call(path, good, {{"Authorization", "Bearer " + token}}), {}, google, entra,
                                         kNow + std::chrono::seconds(61));
  BOOST_REQUIRE(expired.refusal.has_value());
  BOOST_TEST(expired.refusal->status == 401);
  BOOST_TEST(expired.refusal->body.find("ACCESS_TOKEN_EXPIRED") != std::string::npos);
  const auto with_model = checkCloudRequest(
      *route, call(path, R"({"model":"x","anthropic_version":"vertex-2023-10-16"})", {{"Authorization", "Bearer " + token}}),
      {}, google, entra, kNow);
  BOOST_REQUIRE(with_model.refusal.has_value());
  BOOST_TEST(with_model.refusal->body.find("model: Extra inputs are not permitted") != std::string::npos);
  const auto wrong_version = checkCloudRequest(
      *route, call(path, R"({"anthropic_version":"2023-06-01"})", {{"Authorization", "Bearer " + token}}), {}, google, entra, kNow);
  BOOST_REQUIRE(wrong_version.refusal.has_value());
  BOOST_TEST(wrong_version.refusal->body.find("vertex-2023-10-16") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(azure_classic_needs_api_version_and_a_key_or_a_live_entra_token) {
  TokenRing google("ya29.mock-"), entra("mock-entra-");
  const std::string path = "/openai/deployments/gpt-4o/chat/completions";
  const auto route = matchRoute(path);
  BOOST_REQUIRE(route.has_value());
  const auto keyed = checkCloudRequest(*route, call(path, "{}", {{"api-key", "k"}}, "api-version=2024-10-21"), {}, google,
                                       entra, kNow);
  BOOST_TEST(keyed.azure);
  BOOST_TEST(!keyed.refusal.has_value());
  const auto no_version = checkCloudRequest(*route, call(path, "{}", {{"api-key", "k"}}), {}, google, entra, kNow);
  BOOST_REQUIRE(no_version.refusal.has_value());
  BOOST_TEST(no_version.refusal->status == 404);
  const auto wrong_key = checkCloudRequest(*route, call(path, "{}", {{"api-key", "k"}}, "api-version=1"), std::string("other"),
                                           google, entra, kNow);
  BOOST_REQUIRE(wrong_key.refusal.has_value());
  BOOST_TEST(wrong_key.refusal->status == 401);
  const std::string token = entra.issue(std::chrono::seconds(1), kNow);
  const auto v1 = matchRoute("/openai/v1/responses");
  BOOST_TEST(!checkCloudRequest(*v1, call("/openai/v1/responses", "{}", {{"Authorization", "Bearer " + token}}), {}, google,
                                entra, kNow).refusal.has_value());
  BOOST_TEST(checkCloudRequest(*v1, call("/openai/v1/responses", "{}", {{"Authorization", "Bearer " + token}}), {}, google,
                               entra, kNow + std::chrono::seconds(1)).refusal->status == 401);
  // A plain OpenAI call on the same path is not Azure's.
  BOOST_TEST(!checkCloudRequest(*v1, call("/openai/v1/responses", "{}", {{"Authorization", "Bearer sk-x"}}), {}, google,
                                entra, kNow).azure);
}

BOOST_AUTO_TEST_CASE(azure_prompt_filter_error_carries_its_innererror) {
  Script script;
  script.error_code = "content_filter";
  const auto body = nlohmann::json::parse(azureErrorBody(400, script));
  BOOST_TEST(body["error"]["code"] == "content_filter");
  BOOST_TEST(body["error"]["innererror"]["code"] == "ResponsibleAIPolicyViolation");
  BOOST_TEST(body["error"]["innererror"]["content_filter_result"]["violence"]["filtered"] == true);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::mock
