// GET /v1/models in-process: which models each kind of client is listed. A generic OpenAI client
// (the openai SDKs, curl, Open WebUI, LibreChat) is listed every model the catalog does not narrow;
// Claude Code, OpenCode and Codex only the models whose clients: names their family.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "server/config/catalog_loader.h"
#include "tests/server/http/request_path_harness.h"
#include "tests/support/test_env.h"

namespace sluice::testing {
namespace {

using Ids = std::vector<std::string>;

// The User-Agents real generic clients send, and none at all.
const std::vector<std::pair<std::string, std::string>> kGenericClients = {
    {"openai SDK (Python)", "OpenAI/Python 1.55.0"},
    {"openai SDK (Node), as LibreChat uses it", "OpenAI/JS 4.77.0"},
    {"curl", "curl/8.5.0"},
    {"Open WebUI", "Python/3.11 aiohttp/3.10.5"},
};

std::shared_ptr<const catalog::Catalog> listingCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", "credentials:\n  c: { kind: platform, secret: env:KEY }\n"};
  sources.providers = catalog::SourceText{
      "ai/providers.yaml", "providers:\n  p:\n    credential: c\n    endpoints:\n      api: { wire: openai-chat, url: \"https://p.example/v1\" }\n"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  plain: {}
  claude-only: { clients: [claude] }
  hidden: { clients: [] }
  both: { clients: [claude, openai] }
  embed: { kind: embedding }
)"};
  sources.deployments = catalog::SourceText{
      "ai/deployments.yaml",
      "deployments:\n  plain: [p/api]\n  claude-only: [p/api]\n  hidden: [p/api]\n  both: [p/api]\n  embed: [p/api]\n"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: plain
  routes:
    - { id: plain-too, alias_of: plain }
    - { id: hidden-too, alias_of: hidden }
)"};
  sources.env = {{"KEY", "sk-test"}};
  auto result = catalog::compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  return result.catalog;
}

Ids listed(RequestPath& path, std::vector<std::pair<std::string, std::string>> headers) {
  const Reply reply = path.send("GET", "/v1/models", "", std::move(headers));
  BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
  Ids ids;
  const auto body = reply.json();
  for (const auto& entry : body["data"]) ids.push_back(entry["id"]);
  return ids;
}

BOOST_AUTO_TEST_SUITE(models)

BOOST_AUTO_TEST_CASE(a_generic_openai_client_is_listed_every_model_the_catalog_does_not_narrow) {
  RequestPath path(listingCatalog());
  const Ids expected = {"plain", "both", "embed", "plain-too"};
  for (const auto& [client, agent] : kGenericClients) {
    BOOST_TEST_CONTEXT(client) {
      BOOST_TEST(listed(path, {{"User-Agent", agent}}) == expected, boost::test_tools::per_element());
    }
  }
  BOOST_TEST(listed(path, {}) == expected, boost::test_tools::per_element());
  // Explicit narrowing still holds for the dedicated clients.
  BOOST_TEST(listed(path, {{"anthropic-version", "2023-06-01"}}) == (Ids{"claude-only", "both"}),
             boost::test_tools::per_element());
  BOOST_TEST(listed(path, {{"User-Agent", "opencode/1.2.3"}}).empty());
  BOOST_TEST(listed(path, {{"x-sluice-client", "codex"}}).empty());
}

BOOST_AUTO_TEST_CASE(every_shipped_model_is_listed_to_the_openai_sdk_curl_and_open_webui) {
  auto loaded = config::loadCatalog(test::sourceDir() + "/services", {});
  std::string diagnostics;
  for (const auto& diagnostic : loaded.diagnostics) diagnostics += diagnostic.format() + "\n";
  BOOST_REQUIRE_MESSAGE(loaded.ok(), diagnostics);
  Ids every;
  for (const auto& model : loaded.catalog->models) every.push_back(model.id);
  for (const auto& route : loaded.catalog->routes) {
    if (route.kind == catalog::RouteKind::Alias) every.push_back(route.id);
  }
  RequestPath path(loaded.catalog);
  for (const auto& [client, agent] : kGenericClients) {
    BOOST_TEST_CONTEXT(client) {
      const Ids ids = listed(path, {{"User-Agent", agent}});
      BOOST_TEST(ids == every, boost::test_tools::per_element());
      // The model the demo's own Chat Completions curl asks for.
      BOOST_TEST((std::ranges::find(ids, std::string("claude-sonnet-5-5")) != ids.end()));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::testing
