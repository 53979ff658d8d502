// `platform: vertex` and `platform: azure` providers, `gcp:` and `azure:` credentials
// (docs/catalog.md, "Google Vertex AI", "Azure OpenAI and AI Foundry").
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::expectDiagnostic;
using testing::expectError;

constexpr std::string_view kCredentials =
    "  gcp-main:\n    kind: platform\n    gcp: { service_account: file:/etc/sluice/gcp-sa.json }\n"
    "  gcp-adc:\n    kind: platform\n    gcp: { chain: default }\n"
    "  azure-key:\n    kind: platform\n    azure: { api_key: env:AZURE_OPENAI_API_KEY }\n"
    "  azure-entra:\n    kind: platform\n"
    "    azure: { tenant_id: acme.onmicrosoft.com, client_id: 0d3c5a4e-1111-2222-3333-444455556666, "
    "client_secret: env:AZURE_CLIENT_SECRET }\n"
    "  azure-aks:\n    kind: platform\n    azure: { chain: default }\n";
constexpr std::string_view kProviders =
    "  vertex-eu:\n    credential: gcp-main\n    platform: vertex\n    project: acme-ml\n    region: europe-west1\n"
    "    endpoints:\n      claude: { wire: anthropic }\n      gemini: { wire: gemini }\n"
    "  vertex-global:\n    credential: gcp-adc\n    platform: vertex\n    project: acme-ml\n    region: global\n"
    "    endpoints:\n      claude: { wire: anthropic }\n"
    "  azure-sweden:\n    credential: azure-key\n    platform: azure\n    url: https://acme-sweden.openai.azure.com\n"
    "    endpoints:\n      chat: { wire: openai-chat }\n      responses: { wire: openai-responses }\n"
    "      classic: { wire: openai-chat, api_version: \"2024-10-21\" }\n      claude: { wire: anthropic }\n"
    "  azure-entra:\n    credential: azure-entra\n    platform: azure\n"
    "    endpoints:\n      chat: { wire: openai-chat, url: https://acme.openai.azure.com }\n";

CatalogSources cloudSources() {
  CatalogSources sources = baselineSources();
  sources.secret_files["/etc/sluice/gcp-sa.json"] = R"({"type":"service_account","client_email":"a@b"})";
  sources.env["AZURE_OPENAI_API_KEY"] = "azure-key-value";
  sources.env["AZURE_CLIENT_SECRET"] = "entra-secret-value";
  append(sources.credentials, kCredentials);
  append(sources.providers, kProviders);
  return sources;
}

BOOST_AUTO_TEST_SUITE(parse_clouds)

BOOST_AUTO_TEST_CASE(vertex_urls_are_derived_from_the_region_and_global_has_its_own_host) {
  auto catalog = compileClean(cloudSources());
  const Provider* vertex = catalog->provider("vertex-eu");
  BOOST_TEST((vertex->platform == Platform::Vertex));
  BOOST_TEST(vertex->project == "acme-ml");
  BOOST_TEST(vertex->region == "europe-west1");
  BOOST_TEST(catalog->endpoint("vertex-eu/claude")->url == "https://europe-west1-aiplatform.googleapis.com");
  BOOST_TEST(catalog->endpoint("vertex-eu/gemini")->url == "https://europe-west1-aiplatform.googleapis.com");
  BOOST_TEST(catalog->endpoint("vertex-global/claude")->url == "https://aiplatform.googleapis.com");
}

BOOST_AUTO_TEST_CASE(an_endpoint_url_overrides_the_vertex_host) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "gemini: { wire: gemini }", "gemini: { wire: gemini, url: \"http://127.0.0.1:9/\" }");
  BOOST_TEST(compileClean(sources)->endpoint("vertex-eu/gemini")->url == "http://127.0.0.1:9");
}

BOOST_AUTO_TEST_CASE(gcp_and_azure_credentials_resolve_their_references) {
  auto catalog = compileClean(cloudSources());
  const Credential* gcp = catalog->credential("gcp-main");
  BOOST_REQUIRE(gcp->gcp);
  BOOST_TEST(gcp->gcp->service_account.value_or("").find("service_account") != std::string::npos);
  BOOST_TEST(gcp->configured());
  BOOST_TEST(catalog->credential("gcp-adc")->gcp->chain);
  BOOST_TEST(catalog->credential("azure-key")->azure->api_key.value_or("") == "azure-key-value");
  const Credential* entra = catalog->credential("azure-entra");
  BOOST_TEST(entra->azure->tenant_id == "acme.onmicrosoft.com");
  BOOST_TEST(entra->azure->client_id == "0d3c5a4e-1111-2222-3333-444455556666");
  BOOST_TEST(entra->azure->client_secret.value_or("") == "entra-secret-value");
  BOOST_TEST(catalog->credential("azure-aks")->azure->chain);
  BOOST_TEST(catalog->endpoint("azure-sweden/classic")->api_version == "2024-10-21");
  BOOST_TEST(catalog->endpoint("azure-sweden/chat")->api_version == "");
}

BOOST_AUTO_TEST_CASE(the_service_account_file_is_read_like_any_secret_file) {
  CatalogSources sources = cloudSources();
  const auto paths = secretFilesReferenced(sources);
  BOOST_TEST((std::ranges::find(paths, "/etc/sluice/gcp-sa.json") != paths.end()));
  sources.secret_files.clear();
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.credentials, "file:/etc/sluice/gcp-sa.json"),
                   "credential 'gcp-main' is unconfigured: file /etc/sluice/gcp-sa.json could not be read; its "
                   "deployments are skipped");
  BOOST_TEST(!result.catalog->credential("gcp-main")->configured());
}

BOOST_AUTO_TEST_CASE(vertex_needs_a_project_and_a_region) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "    project: acme-ml\n    region: europe-west1\n", "    region: europe-west1\n");
  expectError(compileCatalog(sources), at(sources.providers, "platform: vertex"),
              "provider 'vertex-eu' with platform: vertex needs project: (the Google Cloud project id)");
  sources = cloudSources();
  testing::edit(sources.providers, "    project: acme-ml\n    region: europe-west1\n", "    project: acme-ml\n");
  expectError(compileCatalog(sources), at(sources.providers, "platform: vertex"),
              "provider 'vertex-eu' with platform: vertex needs region: (a location such as europe-west1, or global)");
}

BOOST_AUTO_TEST_CASE(a_project_or_location_that_is_not_one_is_refused_before_it_reaches_a_url) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "project: acme-ml\n    region: europe-west1", "project: \"acme/../x\"\n    region: europe-west1");
  expectError(compileCatalog(sources), at(sources.providers, "\"acme/../x\""),
              "project of provider 'vertex-eu' must be a Google Cloud project id such as acme-ml, got 'acme/../x'");
  sources = cloudSources();
  testing::edit(sources.providers, "region: europe-west1", "region: evil.com/x");
  expectError(compileCatalog(sources), at(sources.providers, "evil.com/x"),
              "region of provider 'vertex-eu' must be a Google Cloud location such as europe-west1 or global, "
              "got 'evil.com/x'");
}

BOOST_AUTO_TEST_CASE(each_platform_serves_its_own_wires) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "gemini: { wire: gemini }", "gemini: { wire: openai-chat }");
  expectError(compileCatalog(sources), at(sources.providers, "gemini: { wire: openai-chat }"),
              "endpoint 'vertex-eu/gemini' is on platform: vertex, which serves wire: anthropic (Claude, rawPredict) "
              "and wire: gemini only");
  sources = cloudSources();
  testing::edit(sources.providers, "claude: { wire: anthropic }\n  azure-entra", "claude: { wire: anthropic, api_version: \"2024-10-21\" }\n  azure-entra");
  expectError(compileCatalog(sources), at(sources.providers, "api_version: \"2024-10-21\" }\n  azure-entra"),
              "api_version of endpoint 'azure-sweden/claude' needs platform: azure and wire: openai-chat or "
              "openai-responses (the classic deployments API)");
  sources = cloudSources();
  testing::edit(sources.providers, "api_version: \"2024-10-21\"", "api_version: \"2024&x=1\"");
  expectError(compileCatalog(sources), at(sources.providers, "\"2024&x=1\""),
              "api_version of endpoint 'azure-sweden/classic' must be an Azure API version such as 2024-10-21, "
              "got '2024&x=1'");
}

BOOST_AUTO_TEST_CASE(azure_has_no_derived_url) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "    url: https://acme-sweden.openai.azure.com\n", "");
  expectError(compileCatalog(sources), at(sources.providers, "chat: { wire: openai-chat }"),
              "endpoint 'azure-sweden/chat' needs url (only an endpoint with presence: may leave it out, to use "
              "the address its presence hub reports)");
}

BOOST_AUTO_TEST_CASE(cloud_identities_serve_their_own_cloud_alone) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.providers, "credential: azure-key\n", "credential: gcp-main\n");
  expectError(compileCatalog(sources), at(sources.providers, "gcp-main\n    platform: azure"),
              "provider 'azure-sweden' uses credential 'gcp-main', whose gcp: identity serves Google Cloud; only a "
              "provider with platform: vertex may use it");
  sources = cloudSources();
  testing::edit(sources.providers, "credential: gcp-main\n", "credential: azure-key\n");
  expectError(compileCatalog(sources), at(sources.providers, "azure-key\n    platform: vertex"),
              "provider 'vertex-eu' uses credential 'azure-key', whose azure: identity serves Azure; only a "
              "provider with platform: azure may use it");
}

BOOST_AUTO_TEST_CASE(azure_credentials_take_exactly_one_way_in) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.credentials, "azure: { chain: default }", "azure: { chain: default, api_key: env:X }");
  expectError(compileCatalog(sources), at(sources.credentials, "azure: { chain: default, api_key"),
              "azure of credential 'azure-aks' needs exactly one of api_key:, tenant_id: with client_id: and "
              "client_secret:, or chain: default");
  sources = cloudSources();
  testing::edit(sources.credentials, "tenant_id: acme.onmicrosoft.com, ", "");
  expectError(compileCatalog(sources), at(sources.credentials, "azure: { client_id"),
              "azure of credential 'azure-entra' needs tenant_id:, client_id: and client_secret: together (Entra "
              "ID client credentials)");
}

BOOST_AUTO_TEST_CASE(a_secret_written_in_a_cloud_credential_is_refused_without_being_echoed) {
  CatalogSources sources = cloudSources();
  testing::edit(sources.credentials, "api_key: env:AZURE_OPENAI_API_KEY", "api_key: sk-literal-secret");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  for (const auto& diagnostic : result.diagnostics) {
    BOOST_TEST(diagnostic.message.find("sk-literal-secret") == std::string::npos);
  }
  sources = cloudSources();
  testing::edit(sources.credentials, "gcp: { chain: default }", "gcp: { chain: default }\n    secret: env:X");
  expectError(compileCatalog(sources), at(sources.credentials, "gcp: { chain: default }"),
              "platform credential 'gcp-adc' has both secret: and gcp:; give one");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
