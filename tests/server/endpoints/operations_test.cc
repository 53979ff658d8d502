// The /v1 operations as a profile of the one pipeline, in-process (FakeTransport, audit rows in
// memory): what a provider of each trust tier receives, and the refusals when data protection
// keeps a request from every deployment.
#include <boost/test/unit_test.hpp>

#include <string>

#include "server/config/catalog_loader.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

// An embedding model on a public endpoint after a trusted_raw one (`raw_first`), or alone;
// data protection masks e-mail addresses and API keys and blocks private keys from public ones.
std::shared_ptr<const catalog::Catalog> protectedCatalog(bool raw_first) {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:KEY }\n"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  tiers:
    credential: c
    endpoints:
      raw: { wire: openai-chat, url: "https://raw.example/v1", trust: trusted_raw }
      api: { wire: openai-chat, url: "https://public.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  chat: {}
  embed: { kind: embedding, pricing: { input_per_million: 0.02 } }
  moderate: { kind: moderation }
  listen: { kind: audio }
)"};
  sources.deployments = catalog::SourceText{
      "ai/deployments.yaml", std::string("deployments:\n  chat: [tiers/api]\n  moderate: [tiers/api]\n  listen: [tiers/api]\n  embed: ") +
                                 (raw_first ? "[tiers/raw, tiers/api]\n" : "[tiers/api]\n")};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: chat
  data_protection:
    mask: [email, api_key, private_key]
    block: [private_key]
)"};
  sources.env = {{"KEY", "sk-provider"}};
  return compileProtected(sources);
}

const std::string kEmbeddingAnswer =
    R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"model":"embed",)"
    R"("usage":{"prompt_tokens":12,"total_tokens":12}})";

const std::string kKey = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd";

}  // namespace

BOOST_AUTO_TEST_SUITE(operations)

BOOST_AUTO_TEST_CASE(an_embeddings_request_to_a_public_endpoint_is_masked_before_it_leaves) {
  RequestPath path(protectedCatalog(false));
  path.transport.script("public.example/v1/embeddings", FakeTransport::json(200, kEmbeddingAnswer));
  const std::string body = R"({"model":"embed","input":["write to ann@example.com","key )" + kKey +
                           R"("],"encoding_format":"float"})";
  const Reply reply = path.send("POST", "/v1/embeddings", body);
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.json()["data"][0]["embedding"][1] == 0.2);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  const std::string& upstream = sent[0].body;
  BOOST_TEST(upstream.find("ann@example.com") == std::string::npos, upstream);
  BOOST_TEST(upstream.find(kKey) == std::string::npos, upstream);
  BOOST_TEST(upstream.find("EMAIL_1") != std::string::npos, upstream);
  BOOST_TEST(upstream.find("\"encoding_format\":\"float\"") != std::string::npos, upstream);  // options untouched
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.route_match.starts_with("endpoint:embeddings"), row.route_match);
  BOOST_TEST(!row.masked.empty());
}

BOOST_AUTO_TEST_CASE(a_trusted_raw_endpoint_receives_the_embeddings_body_byte_for_byte) {
  RequestPath path(protectedCatalog(true));
  path.transport.script("raw.example/v1/embeddings", FakeTransport::json(200, kEmbeddingAnswer));
  const std::string body = R"({"model":"embed","input":"write to ann@example.com"})";
  const Reply reply = path.send("POST", "/v1/embeddings", body);
  BOOST_TEST(reply.status == 200, reply.body);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].body == body);  // the upstream model equals the catalog id: nothing rewritten
  BOOST_TEST(path.onlyRow().masked.empty());
}

BOOST_AUTO_TEST_CASE(a_blocked_kind_never_reaches_a_public_endpoint_on_any_operation) {
  RequestPath path(protectedCatalog(false));
  path.transport.script("public.example", FakeTransport::json(200, kEmbeddingAnswer));
  const std::string pem = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----";
  for (const auto& [target, model] : {std::pair{"/v1/embeddings", "embed"}, std::pair{"/v1/moderations", "moderate"}}) {
    const Reply reply = path.send("POST", target, std::string(R"({"model":")") + model + R"(","input":")" + pem + "\"}");
    BOOST_TEST(reply.status == 400, target << ": " << reply.body);
    BOOST_TEST(reply.json()["error"]["code"] == "data_protection_blocked", reply.body);
  }
  BOOST_TEST(path.transport.sent().empty());
  for (const auto& row : path.sink.rows()) {
    BOOST_TEST(row.outcome == "data_protection_blocked");
    BOOST_REQUIRE(!row.attempts.empty());
    BOOST_TEST(row.attempts.front().result == "skipped:data_protection_blocked");
  }
}

BOOST_AUTO_TEST_CASE(a_model_of_another_kind_is_refused_in_the_callers_format) {
  RequestPath path(protectedCatalog(false));
  const Reply reply = path.send("POST", "/v1/embeddings", R"({"model":"chat","input":"x"})");
  BOOST_TEST(reply.status == 400);
  BOOST_TEST(reply.json()["error"]["code"] == "model_kind_mismatch", reply.body);
  BOOST_TEST(path.transport.sent().empty());
  BOOST_TEST(path.onlyRow().route_match.starts_with("endpoint:embeddings"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
