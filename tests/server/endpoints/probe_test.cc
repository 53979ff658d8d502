// The console's Test button as a profile of the one pipeline, in-process (FakeTransport, audit rows
// in memory): one deployment asked once, breaker or not, the prompt protected as every request's
// text is, and one row marked probe.
#include <boost/test/unit_test.hpp>

#include <string>

#include "server/config/catalog_loader.h"
#include "server/endpoints/probe.h"
#include "server/pipeline/exchange.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;

// A chat model on a trusted_raw Anthropic endpoint and on a public one; data protection masks
// e-mail addresses and blocks private keys from public endpoints.
std::shared_ptr<const catalog::Catalog> probeCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:KEY }\n"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  p:
    credential: c
    endpoints:
      raw: { wire: anthropic, url: "https://raw.example", trust: trusted_raw }
      api: { wire: openai-chat, url: "https://public.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", "models:\n  chat: { pricing: { input_per_million: 1, output_per_million: 2 } }\n"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", "deployments:\n  chat: [p/raw, p/api]\n"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: chat
  data_protection:
    mask: [email, private_key]
    block: [private_key]
)"};
  sources.env = {{"KEY", "sk-provider"}};
  return compileProtected(sources);
}

// Runs the probe of `endpoint` with `prompt` as the console does, answering its result as JSON.
class ProbeHandler : public http::Handler {
 public:
  ProbeHandler(http::Gateway& gateway, std::string endpoint, std::string prompt)
      : gateway_(gateway), endpoint_(std::move(endpoint)), prompt_(std::move(prompt)) {}
  void handle(http::Request& request, http::ServerResponse& response) override {
    http::BodyBudget::Lease lease;
    endpoints::Probe probe({.model_id = "chat", .endpoint_key = endpoint_, .prompt = prompt_, .user = "root"});
    pipeline::Exchange(gateway_, probe, request, response, lease).run();
    BOOST_TEST(!response.sent(), "the probe never writes to the connection");
    const std::string body = probe.result().dump();
    response.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
    response.setContentType("application/json");
    response.setContentLength64(static_cast<Poco::Int64>(body.size()));
    response.send() << body;
  }

 private:
  http::Gateway& gateway_;
  std::string endpoint_;
  std::string prompt_;
};

void probeWith(RequestPath& path, const std::string& endpoint, const std::string& prompt) {
  path.handler = [&path, endpoint, prompt](const http::Request&) {
    return std::make_unique<ProbeHandler>(path.gateway(), endpoint, prompt);
  };
}

const std::string kChatAnswer =
    R"({"id":"c1","object":"chat.completion","model":"chat","choices":[{"index":0,"message":{"role":"assistant",)"
    R"("content":"yes, here"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}})";

}  // namespace

BOOST_AUTO_TEST_SUITE(probe)

BOOST_AUTO_TEST_CASE(a_probe_asks_exactly_its_deployment_and_leaves_one_probe_row) {
  RequestPath path(probeCatalog());
  path.transport.script("raw.example", FakeTransport::json(200, anthropicAnswer("I am here")));
  probeWith(path, "p/raw", "are you there?");
  const Reply reply = path.send("POST", "/admin/api/probe", "{}");
  BOOST_TEST(reply.status == 200);
  const auto result = reply.json();
  BOOST_TEST(result["ok"] == true, reply.body);
  BOOST_TEST(result["status"] == 200);
  BOOST_TEST(result["answer"] == "I am here");
  BOOST_TEST(result["input_tokens"] == 10);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].url.find("raw.example") != std::string::npos);
  BOOST_TEST(sent[0].body.find("are you there?") != std::string::npos, sent[0].body);
  const auto row = path.onlyRow();
  BOOST_TEST(row.probe);
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.user == "root");
  BOOST_TEST(row.strategy == "probe");
  BOOST_TEST(row.client_family == "sluice-console");
  BOOST_TEST(row.route_match.starts_with("probe:console;deployment=p/raw"), row.route_match);
}

BOOST_AUTO_TEST_CASE(a_probe_of_a_public_endpoint_sends_its_prompt_masked) {
  RequestPath path(probeCatalog());
  path.transport.script("public.example", FakeTransport::json(200, kChatAnswer));
  probeWith(path, "p/api", "mail ann@example.com please");
  const Reply reply = path.send("POST", "/admin/api/probe", "{}");
  BOOST_TEST(reply.json()["ok"] == true, reply.body);
  BOOST_TEST(reply.json()["answer"] == "yes, here");
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].body.find("ann@example.com") == std::string::npos, sent[0].body);
  BOOST_TEST(sent[0].body.find("EMAIL_1") != std::string::npos, sent[0].body);
  BOOST_TEST(path.onlyRow().probe);
}

BOOST_AUTO_TEST_CASE(a_probe_carrying_a_blocked_kind_is_never_sent_to_a_public_endpoint) {
  RequestPath path(probeCatalog());
  path.transport.script("public.example", FakeTransport::json(200, kChatAnswer));
  probeWith(path, "p/api",
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----");
  const Reply reply = path.send("POST", "/admin/api/probe", "{}");
  const auto result = reply.json();
  BOOST_TEST(result["ok"] == false, reply.body);
  BOOST_TEST(result["error"].get<std::string>().find("data_protection") != std::string::npos, reply.body);
  BOOST_TEST(path.transport.sentCount() == 0u);
  const auto row = path.onlyRow();
  BOOST_TEST(row.probe);
  BOOST_TEST(row.error_key == "data_protection_blocked");
}

BOOST_AUTO_TEST_CASE(a_probe_whose_provider_fails_shows_the_attempt_that_failed) {
  RequestPath path(probeCatalog());
  path.transport.script("raw.example", FakeTransport::failBeforeHead(upstream::TransportFailure::Connect));
  probeWith(path, "p/raw", "are you there?");
  const Reply reply = path.send("POST", "/admin/api/probe", "{}");
  const auto result = reply.json();
  BOOST_TEST(result["ok"] == false, reply.body);
  BOOST_TEST(result["status"] == 0);
  BOOST_TEST(!result["error"].get<std::string>().empty());
  BOOST_TEST(path.transport.sentCount() == 1u, "one call: a probe never retries");
  const auto row = path.onlyRow();
  BOOST_TEST(row.probe);
  BOOST_TEST(row.outcome != "ok");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
