#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::dump;
using testing::edit;
using testing::expectDiagnostic;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_credentials)

BOOST_AUTO_TEST_CASE(platform_secret_is_read_from_the_named_environment_variable) {
  auto catalog = compileClean(baselineSources());
  const Credential* anthropic = catalog->credential("anthropic");
  BOOST_TEST(anthropic->kind == CredentialKind::Platform);
  BOOST_TEST(anthropic->secret_ref == "env:ANTHROPIC_API_KEY");
  BOOST_TEST(anthropic->secret.value_or("") == "sk-ant-test");
  BOOST_TEST(anthropic->configured());
  BOOST_TEST(anthropic->where.line == 2);
}

BOOST_AUTO_TEST_CASE(file_secret_loses_trailing_whitespace_only) {
  CatalogSources sources = baselineSources();
  BOOST_TEST(compileClean(sources)->credential("deepseek")->secret.value_or("") == "sk-deepseek-test");
  sources.secret_files["/run/secrets/deepseek"] = "  sk key \t\r\n\n";
  BOOST_TEST(compileClean(sources)->credential("deepseek")->secret.value_or("") == "  sk key");
}

BOOST_AUTO_TEST_CASE(personal_credential_is_configured_without_a_secret) {
  auto catalog = compileClean(baselineSources());
  const Credential* go = catalog->credential("opencode-go");
  BOOST_TEST(go->kind == CredentialKind::Personal);
  BOOST_TEST(!go->secret.has_value());
  BOOST_TEST(go->secret_ref.empty());
  BOOST_TEST(go->description == "Your OpenCode Go subscription key");
  BOOST_TEST(go->configured());
}

BOOST_AUTO_TEST_CASE(unset_environment_variable_leaves_the_credential_unconfigured_with_a_warning) {
  CatalogSources sources = baselineSources();
  sources.env.erase("DEEPSEEK_EU_KEY");
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.credentials, "env:DEEPSEEK_EU_KEY"),
                   "credential 'deepseek-eu' is unconfigured: environment variable DEEPSEEK_EU_KEY "
                   "is not set; its deployments are skipped");
  const Credential* eu = result.catalog->credential("deepseek-eu");
  BOOST_TEST(!eu->secret.has_value());
  BOOST_TEST(!eu->configured());
  BOOST_TEST(eu->secret_ref == "env:DEEPSEEK_EU_KEY");
}

BOOST_AUTO_TEST_CASE(empty_environment_variable_counts_as_unconfigured) {
  CatalogSources sources = baselineSources();
  sources.env["DEEPSEEK_EU_KEY"] = "\n";
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.credentials, "env:DEEPSEEK_EU_KEY"),
                   "environment variable DEEPSEEK_EU_KEY is empty");
}

BOOST_AUTO_TEST_CASE(unreadable_secret_file_leaves_the_credential_unconfigured_with_a_warning) {
  CatalogSources sources = baselineSources();
  sources.secret_files.clear();
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.credentials, "file:/run/secrets/deepseek"),
                   "credential 'deepseek' is unconfigured: file /run/secrets/deepseek could not be read");
  BOOST_TEST(!result.catalog->credential("deepseek")->configured());
}

BOOST_AUTO_TEST_CASE(secret_reference_is_interpolated_before_it_is_read) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "secret: env:ANTHROPIC_API_KEY", "secret: env:${KEY_VAR:-ANTHROPIC_API_KEY}");
  BOOST_TEST(compileClean(sources)->credential("anthropic")->secret.value_or("") == "sk-ant-test");
  sources.env["KEY_VAR"] = "DEEPSEEK_EU_KEY";
  BOOST_TEST(compileClean(sources)->credential("anthropic")->secret.value_or("") == "sk-eu-test");
}

BOOST_AUTO_TEST_CASE(platform_credential_needs_a_secret) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "    secret: env:ANTHROPIC_API_KEY\n", "");
  expectError(compileCatalog(sources), at(sources.credentials, "anthropic:"),
              "platform credential 'anthropic' needs secret: env:NAME or secret: file:PATH");
}

BOOST_AUTO_TEST_CASE(personal_credential_must_not_have_a_secret) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "    secret: env:GO_KEY\n");
  expectError(compileCatalog(sources), at(sources.credentials, "secret: env:GO_KEY"),
              "personal credential 'opencode-go' must not have a secret");
}

BOOST_AUTO_TEST_CASE(a_literal_secret_is_refused_without_being_echoed) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "secret: env:ANTHROPIC_API_KEY", "secret: sk-ant-literal");
  CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.credentials, "sk-ant-literal"),
              "secret of credential 'anthropic' must be env:NAME or file:PATH");
  BOOST_TEST(dump(result).find("sk-ant-literal") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(secret_reference_needs_a_name_or_path) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "secret: env:ANTHROPIC_API_KEY", "secret: \"env:\"");
  expectError(compileCatalog(sources), at(sources.credentials, "\"env:\""),
              "secret of credential 'anthropic' names no variable after 'env:'");
}

BOOST_AUTO_TEST_CASE(kind_is_required_and_must_be_platform_or_personal) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "    kind: personal\n", "");
  expectError(compileCatalog(sources), at(sources.credentials, "opencode-go:"),
              "credential 'opencode-go' needs kind: platform or personal");
}

BOOST_AUTO_TEST_CASE(unknown_key_in_a_credential_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "    description:", "    descripton:");
  expectError(compileCatalog(sources), at(sources.credentials, "descripton"),
              "unknown key 'descripton' in credential 'opencode-go'; expected one of: kind, secret, aws, gcp, azure, description");
}

BOOST_AUTO_TEST_CASE(credential_must_be_a_mapping) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "  broken: platform\n");
  expectError(compileCatalog(sources), at(sources.credentials, "platform\n", 4),
              "credential 'broken' must be a mapping, got 'platform'");
}

BOOST_AUTO_TEST_CASE(credential_ids_are_plain_names) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "  bad/id:\n    kind: personal\n");
  expectError(compileCatalog(sources), at(sources.credentials, "bad/id"), "credential id 'bad/id' is not valid");
}

BOOST_AUTO_TEST_CASE(file_needs_the_top_level_key) {
  CatalogSources sources = baselineSources();
  edit(sources.credentials, "credentials:", "credential:");
  CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.credentials, "credential:"),
              "unknown key 'credential' in services/ai/credentials.yaml; expected one of: credentials");
  expectError(result, {"services/ai/credentials.yaml", 1, 1}, "missing the top-level key 'credentials'");
}

BOOST_AUTO_TEST_CASE(empty_file_is_reported) {
  CatalogSources sources = baselineSources();
  sources.credentials->text = "# nothing yet\n";
  expectError(compileCatalog(sources), {"services/ai/credentials.yaml", 0, 0},
              "file is empty; expected the top-level key 'credentials'");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
