// Vertex and Azure calls readdressed and reframed (server/cloud/platform_call.h), and the service
// account's key file read (server/cloud/google_jwt.h).
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "server/cloud/google_jwt.h"
#include "server/cloud/platform_call.h"

namespace sluice::cloud {

namespace {

catalog::Provider vertexProvider(std::string region) {
  catalog::Provider provider;
  provider.platform = catalog::Platform::Vertex;
  provider.project = "acme-ml";
  provider.region = std::move(region);
  return provider;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(platform_call)

BOOST_AUTO_TEST_CASE(the_global_location_and_odd_model_names_stay_inside_their_path_segment) {
  const catalog::Provider provider = vertexProvider("global");
  upstream::Request call;
  call.body = R"({"model":"m","anthropic_version":"vertex-2099-01-01","messages":[]})";
  BOOST_REQUIRE(toVertexCall(call, "https://aiplatform.googleapis.com", provider, catalog::Wire::Anthropic,
                             "claude/../x?y", true));
  BOOST_TEST(call.url == "https://aiplatform.googleapis.com/v1/projects/acme-ml/locations/global/publishers/anthropic/"
                         "models/claude%2F..%2Fx%3Fy:streamRawPredict");
  BOOST_TEST(nlohmann::json::parse(call.body)["anthropic_version"] == "vertex-2099-01-01");  // the client's kept
  call.body = "[1]";
  BOOST_TEST(!toVertexCall(call, "https://x", provider, catalog::Wire::Anthropic, "m", false));
  toVertexCall(call, "https://x", provider, catalog::Wire::Gemini, "gemini-2.5-flash", true);
  BOOST_TEST(call.url ==
             "https://x/v1/projects/acme-ml/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
}

BOOST_AUTO_TEST_CASE(a_vertex_token_count_keeps_its_model_and_gains_the_vertex_anthropic_version) {
  const catalog::Provider provider = vertexProvider("us-east5");
  upstream::Request call;
  call.headers = {{"x-api-key", "client"}, {"anthropic-version", "2023-06-01"}};
  call.body = R"({"model":"claude-sonnet-4-5@20250929","messages":[]})";
  BOOST_REQUIRE(toVertexCountTokensCall(call, "https://x", provider, Header{"Authorization", "Bearer t"}));
  BOOST_TEST(call.url == "https://x/v1/projects/acme-ml/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict");
  const auto body = nlohmann::json::parse(call.body);
  BOOST_TEST(body["model"] == "claude-sonnet-4-5@20250929");
  BOOST_TEST(body["anthropic_version"] == "vertex-2023-10-16");
  BOOST_REQUIRE_EQUAL(call.headers.size(), 1u);
  BOOST_TEST(call.headers[0].first == "Authorization");
}

BOOST_AUTO_TEST_CASE(classic_responses_take_the_api_version_and_keep_the_deployment_in_the_body) {
  catalog::Endpoint endpoint;
  endpoint.wire = catalog::Wire::OpenAIResponses;
  endpoint.api_version = "2025-04-01-preview";
  upstream::Request call;
  call.headers = {{"Authorization", "Bearer client"}, {"x-api-key", "k"}};
  toAzureCall(call, "https://acme.openai.azure.com", endpoint, "gpt-4o-prod");
  BOOST_TEST(call.url == "https://acme.openai.azure.com/openai/responses?api-version=2025-04-01-preview");
  authorizeCall(call, {"api-key", "azure"});
  BOOST_REQUIRE_EQUAL(call.headers.size(), 1u);
  BOOST_TEST(call.headers[0].first == "api-key");
}

BOOST_AUTO_TEST_CASE(an_authorized_user_file_is_a_refresh_token_grant_and_bad_files_are_refused_without_their_content) {
  const auto user = parseGoogleCredentialsFile(
      R"({"type":"authorized_user","client_id":"123.apps.googleusercontent.com","client_secret":"cs/secret",)"
      R"("refresh_token":"1//rt+secret"})");
  BOOST_REQUIRE(user.has_value());
  BOOST_REQUIRE(user->authorized_user.has_value());
  BOOST_TEST(!user->service_account.has_value());
  BOOST_TEST(user->authorized_user->token_uri == "https://oauth2.googleapis.com/token");
  BOOST_TEST(refreshTokenGrantForm(*user->authorized_user) ==
             "grant_type=refresh_token&client_id=123.apps.googleusercontent.com&client_secret=cs%2Fsecret"
             "&refresh_token=1%2F%2Frt%2Bsecret");
  BOOST_TEST(parseGoogleCredentialsFile(R"({"type":"authorized_user","client_id":"c","refresh_token":"rt-secret"})").error() ==
             "the authorized_user file lacks client_id, client_secret or refresh_token");
  BOOST_TEST(parseGoogleCredentialsFile(
                 R"({"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r","token_uri":"file:/x"})")
                 .error() == "the credentials file's token_uri is not an http(s) URL");
  BOOST_TEST(parseGoogleCredentialsFile(R"({"type":"external_account","audience":"secret-aud"})").error() ==
             "the key file's type is not service_account or authorized_user (external_account files, workload "
             "identity federation, are not supported)");
  BOOST_TEST(parseGoogleCredentialsFile(R"({"type":"service_account","client_email":"a@b","private_key":"x"})")
                 ->service_account.has_value());
  BOOST_TEST(parseServiceAccount(R"({"type":"service_account","private_key":"pk-secret"})").error() ==
             "the service-account key file lacks client_email or private_key");
  BOOST_TEST(parseServiceAccount("pk-secret").error() == "the service-account key file is not a JSON object");
  const auto account = parseServiceAccount(R"({"type":"service_account","client_email":"a@b","private_key":"x"})");
  BOOST_TEST(account->token_uri == "https://oauth2.googleapis.com/token");
  BOOST_TEST(serviceAccountAssertion(*account, std::chrono::system_clock::now()).error() ==
             "the service account's private_key is not a PEM RSA key");
}

BOOST_AUTO_TEST_CASE(base64url_has_no_padding_and_the_url_safe_alphabet) {
  BOOST_TEST(base64Url("\xfb\xff") == "-_8");
  BOOST_TEST(base64Url("abc") == "YWJj");
  BOOST_TEST(formEncode("a b/c=d&e") == "a%20b%2Fc%3Dd%26e");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::cloud
