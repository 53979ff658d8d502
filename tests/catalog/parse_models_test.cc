#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::atIn;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectDiagnostic;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_models)

BOOST_AUTO_TEST_CASE(every_model_field_is_read) {
  auto catalog = compileClean(baselineSources());
  const Model* m = catalog->model("claude-sonnet-5-5");
  BOOST_TEST(m->display_name == "Claude Sonnet 5.5");
  BOOST_TEST(m->upstream_model == "claude-sonnet-5-5-20260101");
  BOOST_TEST(m->clients == std::vector<ClientFamily>{ClientFamily::Claude}, boost::test_tools::per_element());
  std::vector<std::string> capabilities = {"streaming", "tools", "vision", "thinking", "prompt_caching"};
  BOOST_TEST(m->capabilities == capabilities, boost::test_tools::per_element());
  BOOST_TEST(m->limits.context_window.value_or(0) == 1000000);
  BOOST_TEST(m->limits.max_output.value_or(0) == 128000);
  BOOST_TEST(m->governance.no_retain.value_or(false));
  BOOST_TEST(!m->governance.european.has_value());
  std::vector<std::string> retired = {"claude-sonnet-4-5", "claude-sonnet-4"};
  BOOST_TEST(m->retired == retired, boost::test_tools::per_element());
  BOOST_TEST(m->where.file == "services/ai/models.yaml");
  BOOST_TEST(m->where.line == 2);
  BOOST_TEST(m->where.column == 3);
}

BOOST_AUTO_TEST_CASE(display_name_and_upstream_model_default_to_the_id) {
  auto catalog = compileClean(baselineSources());
  const Model* m = catalog->model("deepseek-flash");
  BOOST_TEST(m->display_name == "deepseek-flash");
  BOOST_TEST(m->upstream_model == "deepseek-flash");
  BOOST_TEST(m->clients.empty());
  BOOST_TEST(!m->limits.context_window.has_value());
}

BOOST_AUTO_TEST_CASE(unknown_key_names_the_model_and_the_expected_keys) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "    pricing: { input_per_million: 0.07", "    pricng: { input_per_million: 0.07");
  expectError(compileCatalog(sources), at(sources.models, "pricng"),
              "unknown key 'pricng' in model 'deepseek-flash'; expected one of: display_name, "
              "upstream_model, kind, clients, capabilities, limits, pricing, governance, retired (did you mean 'pricing'?)");
}

BOOST_AUTO_TEST_CASE(a_model_without_clients_is_listed_to_a_generic_openai_client_only) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "    clients: [claude, opencode]\n", "");
  auto catalog = compileClean(sources);
  const Model* m = catalog->model("claude-haiku-5");
  BOOST_TEST(m->advertisedTo(ClientFamily::OpenAI));
  for (ClientFamily dedicated : {ClientFamily::Claude, ClientFamily::OpenCode, ClientFamily::Codex}) {
    BOOST_TEST(!m->advertisedTo(dedicated));
  }
}

BOOST_AUTO_TEST_CASE(a_written_clients_list_narrows_exactly_to_the_families_it_names) {
  auto catalog = compileClean(baselineSources());
  const Model* sonnet = catalog->model("claude-sonnet-5-5");  // clients: [claude]
  BOOST_TEST(sonnet->advertisedTo(ClientFamily::Claude));
  BOOST_TEST(!sonnet->advertisedTo(ClientFamily::OpenAI));
  const Model* flash = catalog->model("deepseek-flash");  // clients: []
  BOOST_TEST(!flash->advertisedTo(ClientFamily::OpenAI));
}

BOOST_AUTO_TEST_CASE(clients_must_be_known_families) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "clients: [claude, opencode]", "clients: [claude, cursor]");
  expectError(compileCatalog(sources), at(sources.models, "cursor"),
              "client 'cursor' of model 'claude-haiku-5' must be one of: claude, opencode, codex, openai");
}

BOOST_AUTO_TEST_CASE(clients_must_be_a_list) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "clients: [claude]", "clients: claude");
  expectError(compileCatalog(sources), at(sources.models, "claude\n"),
              "clients of model 'claude-sonnet-5-5' must be a list of strings, got 'claude'");
}

BOOST_AUTO_TEST_CASE(unknown_capability_is_only_a_warning) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "capabilities: [streaming, tools]\n    limits: { context_window: 200000 }",
       "capabilities: [streaming, telepathy]\n    limits: { context_window: 200000 }");
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.ok());
  expectDiagnostic(result, Severity::Warning, at(sources.models, "telepathy"),
                   "unknown capability 'telepathy' of model 'claude-haiku-5'");
  BOOST_TEST(result.catalog->model("claude-haiku-5")->hasCapability("telepathy"));
}

BOOST_AUTO_TEST_CASE(limits_are_positive_integers) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "context_window: 200000", "context_window: 0");
  edit(sources.models, "max_output: 8000", "max_output: lots");
  auto result = compileCatalog(sources);
  expectError(result, atIn(sources.models, "context_window: 0", "0 }"), "context_window in limits of model 'claude-haiku-5' must be a positive integer, got '0'");
  expectError(result, at(sources.models, "lots"), "max_output in limits of model 'deepseek-v4-pro' must be a positive integer, got 'lots'");
}

BOOST_AUTO_TEST_CASE(max_output_cannot_exceed_the_context_window) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "max_output: 8000", "max_output: 200000");
  expectError(compileCatalog(sources), atIn(sources.models, "max_output: 200000", "200000"),
              "max_output in limits of model 'deepseek-v4-pro' (200000) exceeds its context_window (128000)");
}

BOOST_AUTO_TEST_CASE(governance_override_flags_are_booleans) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "governance: { no_retain: true }", "governance: { no_retain: 1 }");
  expectError(compileCatalog(sources), atIn(sources.models, "no_retain: 1", "1 }"),
              "no_retain in governance of model 'claude-sonnet-5-5' must be true or false, got '1'");
}

BOOST_AUTO_TEST_CASE(model_ids_may_not_hold_glob_characters) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  \"gpt-*\": {}\n");
  expectError(compileCatalog(sources), at(sources.models, "\"gpt-*\""), "model id 'gpt-*' is not valid");
}

BOOST_AUTO_TEST_CASE(model_ids_may_hold_slashes_and_colons) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  meta/llama-4:70b: {}\n");
  append(sources.deployments, "  meta/llama-4:70b: [deepseek/api]\n");
  BOOST_TEST(compileClean(sources)->model("meta/llama-4:70b") != nullptr);
}

BOOST_AUTO_TEST_CASE(duplicate_model_is_reported_at_the_second_declaration) {
  CatalogSources sources = baselineSources();
  append(sources.models, "  claude-haiku-5:\n    display_name: Again\n");
  expectError(compileCatalog(sources), at(sources.models, "claude-haiku-5:", 2),
              "duplicate key 'claude-haiku-5' in models; first defined at line " +
                  std::to_string(at(sources.models, "claude-haiku-5:").line));
}

BOOST_AUTO_TEST_CASE(an_empty_upstream_model_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "upstream_model: claude-sonnet-5-5-20260101", "upstream_model: \"${UPSTREAM:-}\"");
  expectError(compileCatalog(sources), at(sources.models, "\"${UPSTREAM:-}\""),
              "upstream_model of model 'claude-sonnet-5-5' must not be empty");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
