// `platform: bedrock` providers and `aws:` credentials (docs/catalog.md, "AWS Bedrock").
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

constexpr std::string_view kAwsKeys =
    "  aws-main:\n    kind: platform\n"
    "    aws: { access_key_id: env:BEDROCK_KEY_ID, secret_access_key: env:BEDROCK_SECRET, "
    "session_token: env:BEDROCK_TOKEN }\n";
constexpr std::string_view kBedrock =
    "  bedrock-us:\n    credential: aws-main\n    platform: bedrock\n    region: us-east-1\n"
    "    endpoints:\n      claude: { wire: anthropic }\n";

CatalogSources bedrockSources() {
  CatalogSources sources = baselineSources();
  sources.env["BEDROCK_KEY_ID"] = "AKIDEXAMPLE";
  sources.env["BEDROCK_SECRET"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  sources.env["BEDROCK_TOKEN"] = "session-token";
  append(sources.credentials, kAwsKeys);
  append(sources.providers, kBedrock);
  return sources;
}

// Compiles with no diagnostic at all.
std::shared_ptr<const Catalog> compileBedrock(const CatalogSources& sources) {
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  for (const auto& diagnostic : result.diagnostics) BOOST_TEST(false, diagnostic.message);
  return result.catalog;
}

BOOST_AUTO_TEST_SUITE(parse_bedrock)

BOOST_AUTO_TEST_CASE(bedrock_on_the_anthropic_wire_is_served_without_a_warning) {
  BOOST_TEST(compileBedrock(bedrockSources())->provider("bedrock-us") != nullptr);
}

BOOST_AUTO_TEST_CASE(bedrock_converse_is_served_on_bedrock_and_refused_elsewhere) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "claude: { wire: anthropic }", "claude: { wire: anthropic }\n      converse: { wire: bedrock-converse }");
  auto catalog = compileBedrock(sources);
  BOOST_TEST((catalog->endpoint("bedrock-us/converse")->wire == Wire::BedrockConverse));
  BOOST_TEST(catalog->endpoint("bedrock-us/converse")->url == "https://bedrock-runtime.us-east-1.amazonaws.com");

  CatalogSources elsewhere = baselineSources();
  append(elsewhere.providers, "  not-aws:\n    credential: anthropic\n    endpoints:\n"
                              "      converse: { wire: bedrock-converse, url: https://example.com }\n");
  expectError(compileCatalog(elsewhere), at(elsewhere.providers, "bedrock-converse"),
              "wire of endpoint 'not-aws/converse': bedrock-converse is Bedrock's Converse API and needs "
              "platform: bedrock on provider 'not-aws'");
}

BOOST_AUTO_TEST_CASE(static_aws_keys_and_the_default_regional_url) {
  auto catalog = compileBedrock(bedrockSources());
  const Credential* aws = catalog->credential("aws-main");
  BOOST_REQUIRE(aws->aws);
  BOOST_TEST(aws->aws->access_key_id.value_or("") == "AKIDEXAMPLE");
  BOOST_TEST(aws->aws->secret_access_key.value_or("") == "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
  BOOST_TEST(aws->aws->session_token == "session-token");
  BOOST_TEST(aws->configured());
  const Provider* bedrock = catalog->provider("bedrock-us");
  BOOST_TEST((bedrock->platform == Platform::Bedrock));
  BOOST_TEST(bedrock->region == "us-east-1");
  BOOST_TEST(catalog->endpoint("bedrock-us/claude")->url == "https://bedrock-runtime.us-east-1.amazonaws.com");
  BOOST_TEST((catalog->endpoint("bedrock-us/claude")->wire == Wire::Anthropic));
}

BOOST_AUTO_TEST_CASE(url_overrides_the_regional_default) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "claude: { wire: anthropic }", "claude: { wire: anthropic, url: \"http://127.0.0.1:9/\" }");
  BOOST_TEST(compileBedrock(sources)->endpoint("bedrock-us/claude")->url == "http://127.0.0.1:9");
}

BOOST_AUTO_TEST_CASE(a_missing_secret_access_key_leaves_aws_keys_unconfigured) {
  CatalogSources sources = bedrockSources();
  sources.env.erase("BEDROCK_SECRET");
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.credentials, "env:BEDROCK_SECRET"),
                   "credential 'aws-main' is unconfigured: environment variable BEDROCK_SECRET is not set; its "
                   "deployments are skipped");
  BOOST_TEST(!result.catalog->credential("aws-main")->configured());
}

BOOST_AUTO_TEST_CASE(a_named_session_token_that_is_missing_leaves_them_unconfigured) {
  CatalogSources sources = bedrockSources();
  sources.env.erase("BEDROCK_TOKEN");
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  BOOST_TEST(!result.catalog->credential("aws-main")->configured());
}

BOOST_AUTO_TEST_CASE(bedrock_needs_a_region_and_region_needs_bedrock) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "    region: us-east-1\n", "");
  expectError(compileCatalog(sources), at(sources.providers, "platform: bedrock"),
              "provider 'bedrock-us' with platform: bedrock needs region: (the signing region, e.g. us-east-1)");
  CatalogSources direct = bedrockSources();
  testing::edit(direct.providers, "    platform: bedrock\n", "");
  expectError(compileCatalog(direct), at(direct.providers, "region: us-east-1"),
              "region of provider 'bedrock-us' needs platform: bedrock or vertex");
}

BOOST_AUTO_TEST_CASE(a_region_that_is_not_one_is_refused_before_it_reaches_a_host_name) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "region: us-east-1", "region: \"evil.com/x\"");
  expectError(compileCatalog(sources), at(sources.providers, "\"evil.com/x\""),
              "region of provider 'bedrock-us' must be an AWS region such as us-east-1, got 'evil.com/x'");
}

BOOST_AUTO_TEST_CASE(bedrock_serves_the_anthropic_and_converse_wires_only) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "claude: { wire: anthropic }", "claude: { wire: openai-chat }");
  expectError(compileCatalog(sources), at(sources.providers, "claude:"),
              "endpoint 'bedrock-us/claude' is on platform: bedrock, which serves wire: anthropic (InvokeModel) and "
              "bedrock-converse (Converse)");
}

BOOST_AUTO_TEST_CASE(aws_keys_serve_bedrock_providers_only) {
  CatalogSources sources = bedrockSources();
  testing::edit(sources.providers, "    credential: anthropic\n", "    credential: aws-main\n");
  expectError(compileCatalog(sources), at(sources.providers, "aws-main"),
              "provider 'anthropic' uses credential 'aws-main', whose aws: keys sign requests to AWS; only a "
              "provider with platform: bedrock may use it");
}

BOOST_AUTO_TEST_CASE(secret_and_aws_together_are_refused) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "  both:\n    kind: platform\n    secret: env:X\n    aws: { chain: default }\n");
  expectError(compileCatalog(sources), at(sources.credentials, "aws: { chain"),
              "platform credential 'both' has both secret: and aws:; give one");
}

BOOST_AUTO_TEST_CASE(a_bedrock_api_key_is_a_plain_secret) {
  CatalogSources sources = bedrockSources();
  sources.env["BEDROCK_API_KEY"] = "bedrock-api-key";
  append(sources.credentials, "  bedrock-key:\n    kind: platform\n    secret: env:BEDROCK_API_KEY\n");
  testing::edit(sources.providers, "    credential: aws-main\n", "    credential: bedrock-key\n");
  auto catalog = compileBedrock(sources);
  BOOST_TEST(catalog->credential("bedrock-key")->secret.value_or("") == "bedrock-api-key");
  BOOST_TEST(catalog->provider("bedrock-us")->credential_id == "bedrock-key");
}

BOOST_AUTO_TEST_CASE(chain_default_reads_the_standard_environment_variables) {
  CatalogSources sources = bedrockSources();
  append(sources.credentials, "  aws-chain:\n    kind: platform\n    aws: { chain: default }\n");
  sources.env["AWS_ACCESS_KEY_ID"] = "AKIDCHAIN";
  sources.env["AWS_SECRET_ACCESS_KEY"] = "chain-secret";
  auto catalog = compileBedrock(sources);
  const Credential* chain = catalog->credential("aws-chain");
  BOOST_TEST(chain->aws->chain);
  BOOST_TEST(chain->aws->access_key_id.value_or("") == "AKIDCHAIN");
  BOOST_TEST(chain->aws->session_token.empty());
  BOOST_TEST(chain->configured());
}

BOOST_AUTO_TEST_CASE(chain_default_without_keys_in_the_environment_is_left_to_the_runtime_chain) {
  CatalogSources sources = bedrockSources();
  append(sources.credentials, "  aws-chain:\n    kind: platform\n    aws: { chain: default }\n");
  sources.env.erase("AWS_ACCESS_KEY_ID");
  auto catalog = compileBedrock(sources);
  BOOST_TEST(!catalog->credential("aws-chain")->aws->access_key_id.has_value());
  BOOST_TEST(catalog->credential("aws-chain")->configured());
}

BOOST_AUTO_TEST_CASE(role_arn_is_validated_and_kept_for_assume_role) {
  CatalogSources sources = bedrockSources();
  append(sources.credentials,
         "  aws-eks:\n    kind: platform\n    aws: { chain: default, role_arn: \"arn:aws:iam::123456789012:role/sluice\" }\n");
  CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  for (const auto& diagnostic : result.diagnostics) BOOST_TEST(diagnostic.message.find("role_arn") == std::string::npos);
  BOOST_TEST(result.catalog->credential("aws-eks")->aws->role_arn == "arn:aws:iam::123456789012:role/sluice");
  CatalogSources bad = bedrockSources();
  append(bad.credentials, "  aws-eks:\n    kind: platform\n    aws: { chain: default, role_arn: \"sluice\" }\n");
  expectError(compileCatalog(bad), at(bad.credentials, "\"sluice\""),
              "role_arn of aws of credential 'aws-eks' must be an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME), got "
              "'sluice'");
}

BOOST_AUTO_TEST_CASE(chain_and_keys_together_are_refused) {
  CatalogSources sources = baselineSources();
  append(sources.credentials, "  mixed:\n    kind: platform\n    aws: { chain: default, access_key_id: env:X }\n");
  expectError(compileCatalog(sources), at(sources.credentials, "chain: default, access"),
              "aws of credential 'mixed' has chain: and keys; give chain: default, or access_key_id: and "
              "secret_access_key:");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
