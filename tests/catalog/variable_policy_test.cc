// Which environment variables a catalog may read, and that no diagnostic shows a value read from
// the environment (docs/catalog.md, "Interpolation").
#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::at;
using testing::baselineSources;
using testing::dump;
using testing::edit;
using testing::expectError;

constexpr std::string_view kMasterKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

bool anyDiagnosticHolds(const CompileResult& result, std::string_view text) {
  return std::ranges::any_of(result.diagnostics, [&](const Diagnostic& d) {
    return d.format().find(text) != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE(variable_policy)

BOOST_AUTO_TEST_CASE(row3_a_secret_variable_outside_a_credential_is_an_error_that_never_shows_it) {
  CatalogSources sources = baselineSources();
  sources.env["SLUICE_MASTER_KEY"] = kMasterKey;
  sources.env["SLUICE_MASTER_KEY_OLD"] = "old-master-key-value";
  edit(sources.gateway, "default_model: claude-sonnet-5-5", "default_model: \"${ANTHROPIC_API_KEY}\"");
  edit(sources.gateway, "label: DeepSeek V4 Pro on your own Go key", "label: \"key ${SLUICE_MASTER_KEY}\"");
  edit(sources.gateway, "alias_of: deepseek-v4-pro", "alias_of: \"${SLUICE_MASTER_KEY_OLD:-deepseek-v4-pro}\"");
  const CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  expectError(result, at(sources.gateway, "\"${ANTHROPIC_API_KEY}\""),
              "secret variable ANTHROPIC_API_KEY used outside a credential");
  expectError(result, at(sources.gateway, "\"key ${SLUICE_MASTER_KEY}\""),
              "secret variable SLUICE_MASTER_KEY used outside a credential");
  expectError(result, at(sources.gateway, "\"${SLUICE_MASTER_KEY_OLD:-deepseek-v4-pro}\""),
              "secret variable SLUICE_MASTER_KEY_OLD used outside a credential");
  BOOST_TEST(!anyDiagnosticHolds(result, "sk-ant-test"), dump(result));
  BOOST_TEST(!anyDiagnosticHolds(result, kMasterKey), dump(result));
  BOOST_TEST(!anyDiagnosticHolds(result, "old-master-key-value"), dump(result));
}

BOOST_AUTO_TEST_CASE(row3_a_credential_still_reads_its_secret_from_the_environment) {
  auto result = compileCatalog(baselineSources());
  BOOST_REQUIRE_MESSAGE(result.ok(), dump(result));
  const auto credential = std::ranges::find(result.catalog->credentials, std::string("anthropic"), &Credential::id);
  BOOST_REQUIRE(credential != result.catalog->credentials.end());
  BOOST_TEST(credential->secret.value_or("") == "sk-ant-test");
  BOOST_TEST(secretVariables(baselineSources()) == (std::set<std::string>{"ANTHROPIC_API_KEY", "DEEPSEEK_EU_KEY"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(row3_diagnostics_show_the_reference_never_the_interpolated_value) {
  CatalogSources sources = baselineSources();
  sources.env["DEFAULT_MODEL"] = "private-model-name-xyz";
  edit(sources.gateway, "default_model: claude-sonnet-5-5", "default_model: \"${DEFAULT_MODEL}\"");
  const CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  BOOST_TEST(!anyDiagnosticHolds(result, "private-model-name-xyz"), dump(result));
  BOOST_TEST(anyDiagnosticHolds(result, "${DEFAULT_MODEL}"), dump(result));
}

BOOST_AUTO_TEST_CASE(row3_a_plain_variable_still_fills_a_label) {
  CatalogSources sources = baselineSources();
  sources.env["TEAM"] = "Platform team";
  edit(sources.gateway, "label: DeepSeek V4 Pro on your own Go key", "label: \"Go key of ${TEAM}\"");
  auto result = compileCatalog(sources);
  BOOST_REQUIRE_MESSAGE(result.ok(), dump(result));
  BOOST_TEST(result.catalog->route("go-deepseek-v4-pro")->label == "Go key of Platform team");
}

BOOST_AUTO_TEST_CASE(row3_allowed_variables_limit_what_the_edited_text_may_read) {
  CatalogSources sources = baselineSources();
  sources.env["TEAM"] = "Platform team";
  sources.env["DATABASE_URL"] = "postgresql://u:database-password@db/x";
  sources.allowed_variables = variablesReferenced(sources);
  sources.allowed_variables->insert("TEAM");
  edit(sources.gateway, "label: DeepSeek V4 Pro on your own Go key", "label: \"${DATABASE_URL:-none}\"");
  edit(sources.gateway, "alias_of: deepseek-v4-pro", "alias_of: \"${NOT_ON_DISK}\"");
  const CompileResult result = compileCatalog(sources);
  BOOST_TEST(!result.ok());
  expectError(result, at(sources.gateway, "\"${DATABASE_URL:-none}\""),
              "variable DATABASE_URL is not used by the catalog files on disk");
  expectError(result, at(sources.gateway, "\"${NOT_ON_DISK}\""), "variable NOT_ON_DISK is not used by the catalog files on disk");
  BOOST_TEST(!anyDiagnosticHolds(result, "database-password"), dump(result));

  CatalogSources allowed = baselineSources();
  allowed.env["TEAM"] = "Platform team";
  allowed.allowed_variables = variablesReferenced(allowed);
  allowed.allowed_variables->insert("TEAM");
  edit(allowed.gateway, "label: DeepSeek V4 Pro on your own Go key", "label: \"${TEAM}\"");
  auto compiled = compileCatalog(allowed);
  BOOST_REQUIRE_MESSAGE(compiled.ok(), dump(compiled));
}

BOOST_AUTO_TEST_CASE(variables_referenced_are_read_from_scalars_not_comments) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "label: DeepSeek V4 Pro on your own Go key",
       "label: \"${TEAM} and ${REGION:-eu} $${LITERAL}\"  # ${IN_A_COMMENT}");
  const auto names = variablesReferenced(sources);
  BOOST_TEST(names.contains("TEAM"));
  BOOST_TEST(names.contains("REGION"));
  BOOST_TEST(!names.contains("LITERAL"));
  BOOST_TEST(!names.contains("IN_A_COMMENT"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
