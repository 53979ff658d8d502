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
using testing::dump;
using testing::edit;
using testing::expectError;
using testing::expectDiagnostic;

using Ids = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(link_routes)

BOOST_AUTO_TEST_CASE(route_kinds_follow_what_the_route_declares) {
  CatalogSources sources = baselineSources();
  append(sources.gateway, "    - id: long-context-policy\n      models: [claude-haiku-5]\n      context_fallbacks: [claude-sonnet-5-5]\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->route("go-deepseek-v4-pro")->kind == RouteKind::Alias);
  BOOST_TEST(catalog->route("project-odoo-delivery")->kind == RouteKind::Scoped);
  BOOST_TEST(catalog->route("fast-pool")->kind == RouteKind::Pinned);
  BOOST_TEST(catalog->route("long-context-policy")->kind == RouteKind::Policy);
  BOOST_TEST(catalog->route("deepseek-flash")->kind == RouteKind::Implicit);
}

BOOST_AUTO_TEST_CASE(alias_route_serves_exactly_its_model) {
  auto catalog = compileClean(baselineSources());
  const Route* alias = catalog->route("go-deepseek-v4-pro");
  BOOST_TEST(alias->models == Ids{"deepseek-v4-pro"}, boost::test_tools::per_element());
  BOOST_REQUIRE(alias->deployments.size() == 1u);
  BOOST_TEST(alias->deployments[0].endpoint_key == "opencode-go/chat");
}

BOOST_AUTO_TEST_CASE(glob_expands_over_declared_models_in_file_order) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST(catalog->route("project-odoo-delivery")->models == (Ids{"claude-sonnet-5-5", "claude-haiku-5"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(several_patterns_expand_in_order_without_duplicates) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: claude-*", "models: [\"deepseek-?????\", claude-haiku-5, claude-*, deepseek-flash]");
  edit(sources.gateway, "      deployments: [anthropic/api]\n", "");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->route("project-odoo-delivery")->models ==
                 (Ids{"deepseek-flash", "claude-haiku-5", "claude-sonnet-5-5"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(glob_matching_no_declared_model_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: claude-*", "models: [claude-*, gpt-*]");
  expectError(compileCatalog(sources), at(sources.gateway, "gpt-*"),
              "pattern 'gpt-*' in models of route 'project-odoo-delivery' matches no declared model");
}

BOOST_AUTO_TEST_CASE(route_naming_an_undeclared_model_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: [deepseek-flash, deepseek-slow]");
  expectError(compileCatalog(sources), at(sources.gateway, "deepseek-slow"),
              "models of route 'fast-pool' names undeclared model 'deepseek-slow'");
}

BOOST_AUTO_TEST_CASE(route_naming_a_retired_id_or_an_alias_gets_a_hint) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: [deepseek-flash, claude-sonnet-4, go-deepseek-v4-pro]");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "claude-sonnet-4,"),
              "names undeclared model 'claude-sonnet-4'; 'claude-sonnet-4' is retired, replaced by 'claude-sonnet-5-5'");
  expectError(result, at(sources.gateway, "go-deepseek-v4-pro]"),
              "names undeclared model 'go-deepseek-v4-pro'; 'go-deepseek-v4-pro' is an alias route of model 'deepseek-v4-pro'");
}

BOOST_AUTO_TEST_CASE(alias_must_name_a_declared_model) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "alias_of: deepseek-v4-pro", "alias_of: deepseek-v5");
  expectError(compileCatalog(sources), at(sources.gateway, "deepseek-v5"),
              "alias_of of route 'go-deepseek-v4-pro' names undeclared model 'deepseek-v5'; "
              "alias_of: names the declared model that the route id is a new name for: id: <new name>, alias_of: "
              "<declared model>");
}

BOOST_AUTO_TEST_CASE(the_old_alias_key_is_still_read_with_a_warning_that_shows_alias_of) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "alias_of: deepseek-v4-pro", "alias: deepseek-v4-pro");
  const CompileResult result = compileCatalog(sources);
  BOOST_REQUIRE_MESSAGE(result.ok(), dump(result));
  const Route* alias = result.catalog->route("go-deepseek-v4-pro");
  BOOST_TEST((alias->kind == RouteKind::Alias));
  BOOST_TEST(alias->models == Ids{"deepseek-v4-pro"}, boost::test_tools::per_element());
  expectDiagnostic(result, Severity::Warning, at(sources.gateway, "alias: "),
                            "alias: of route 'go-deepseek-v4-pro' is deprecated; write alias_of: deepseek-v4-pro "
                            "(the route id is the new name, alias_of: the declared model it serves)");
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_CASE(alias_of_and_alias_together_are_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "      alias_of: deepseek-v4-pro\n", "      alias_of: deepseek-v4-pro\n      alias: deepseek-v4-pro\n");
  expectError(compileCatalog(sources), at(sources.gateway, "alias: "),
              "route 'go-deepseek-v4-pro' has both alias_of: and alias:, which mean the same; keep alias_of: only");
}

BOOST_AUTO_TEST_CASE(an_alias_written_backwards_gets_one_error_showing_the_right_form) {
  for (const std::string key : {"alias_of", "alias"}) {
    CatalogSources sources = baselineSources();
    append(sources.gateway, "    - id: claude-haiku-5\n      " + key + ": cheap-chat\n");
    const CompileResult result = compileCatalog(sources);
    expectError(result, at(sources.gateway, "id: claude-haiku-5"),
                "route 'claude-haiku-5' reads backwards: 'claude-haiku-5' is a declared model and 'cheap-chat' is not, "
                "but the route id is the new name and " + key + ": the model it serves; write id: cheap-chat, "
                "alias_of: claude-haiku-5");
    size_t errors = 0;
    for (const Diagnostic& d : result.diagnostics) errors += d.severity == Severity::Error;
    BOOST_TEST(errors == 1u, dump(result));  // no collision, no undeclared model beside it
  }
}

BOOST_AUTO_TEST_CASE(an_undeclared_model_in_a_route_names_the_nearest_declared_ids) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: [deepseek-flsh]");
  expectError(compileCatalog(sources), at(sources.gateway, "deepseek-flsh"),
              "models of route 'fast-pool' names undeclared model 'deepseek-flsh' (did you mean 'deepseek-flash'?)");
}

BOOST_AUTO_TEST_CASE(alias_cannot_be_a_pattern) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "alias_of: deepseek-v4-pro", "alias_of: deepseek-*");
  expectError(compileCatalog(sources), at(sources.gateway, "deepseek-*"),
              "alias_of of route 'go-deepseek-v4-pro' must name one model, not the pattern 'deepseek-*'");
}

BOOST_AUTO_TEST_CASE(route_needs_models_or_alias_but_not_both) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "      alias_of: deepseek-v4-pro\n", "      alias_of: deepseek-v4-pro\n      models: [deepseek-v4-pro]\n");
  edit(sources.gateway, "      models: [deepseek-flash]\n", "");
  auto result = compileCatalog(sources);
  expectError(result, atIn(sources.gateway, "alias_of: ", "deepseek-v4-pro"),
              "route 'go-deepseek-v4-pro' has both alias_of: and models:; an alias serves exactly one model");
  expectError(result, at(sources.gateway, "id: fast-pool"),
              "route 'fast-pool' needs models: (ids or patterns) or alias_of: (one model)");
}

BOOST_AUTO_TEST_CASE(empty_models_list_is_refused) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: []");
  expectError(compileCatalog(sources), atIn(sources.gateway, "models: []", "[]"),
              "models of route 'fast-pool' must name at least one model or pattern");
  sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models:");
  CompileResult result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "models:\n"), "models of route 'fast-pool' must name at least one model or pattern");
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_CASE(badly_typed_models_are_reported_once) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: { id: deepseek-flash }");
  CompileResult result = compileCatalog(sources);
  expectError(result, atIn(sources.gateway, "models: {", "{"),
              "models of route 'fast-pool' must be a string or a list of strings, got a mapping");
  BOOST_TEST(result.diagnostics.size() == 1u, dump(result));
}

BOOST_AUTO_TEST_CASE(route_ids_are_unique) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "id: fast-pool", "id: project-odoo-delivery");
  expectError(compileCatalog(sources), at(sources.gateway, "id: project-odoo-delivery", 2),
              "duplicate route id 'project-odoo-delivery'; first defined at line " +
                  std::to_string(at(sources.gateway, "id: project-odoo-delivery").line));
}

BOOST_AUTO_TEST_CASE(route_id_cannot_be_a_model_id) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "id: fast-pool", "id: deepseek-flash");
  expectError(compileCatalog(sources), at(sources.gateway, "id: deepseek-flash"),
              "route id 'deepseek-flash' collides with model 'deepseek-flash' declared at services/ai/models.yaml:" +
                  std::to_string(at(sources.models, "deepseek-flash:").line) + ":3");
}

BOOST_AUTO_TEST_CASE(alias_id_cannot_be_a_model_id) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "id: go-deepseek-v4-pro", "id: claude-haiku-5");
  expectError(compileCatalog(sources), at(sources.gateway, "id: claude-haiku-5"),
              "route id 'claude-haiku-5' collides with model 'claude-haiku-5'");
}

BOOST_AUTO_TEST_CASE(route_id_cannot_be_a_retired_id) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "id: go-deepseek-v4-pro", "id: claude-sonnet-4-5");
  expectError(compileCatalog(sources), at(sources.gateway, "id: claude-sonnet-4-5"),
              "route id 'claude-sonnet-4-5' collides with a retired id of model 'claude-sonnet-5-5' at services/ai/models.yaml:");
}

BOOST_AUTO_TEST_CASE(route_deployments_must_be_deployments_of_each_served_model) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "models: [deepseek-flash]", "models: [deepseek-flash, deepseek-v4-pro]");
  expectError(compileCatalog(sources), at(sources.gateway, "deepseek-eu/api"),
              "deployment 'deepseek-eu/api' of route 'fast-pool' is not a deployment of model 'deepseek-v4-pro'; "
              "its deployments: deepseek/api, opencode-go/chat");
}

BOOST_AUTO_TEST_CASE(pinned_deployment_of_a_glob_must_exist_for_every_match) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "deployments: [anthropic/api]", "deployments: [deepseek/api]");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "deepseek/api"), "is not a deployment of model 'claude-sonnet-5-5'");
  expectError(result, at(sources.gateway, "deepseek/api"), "is not a deployment of model 'claude-haiku-5'");
}

BOOST_AUTO_TEST_CASE(route_deployment_must_be_a_known_endpoint) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "deployments: [opencode-go/chat]", "deployments: [opencode-go/chatt]");
  expectError(compileCatalog(sources), at(sources.gateway, "opencode-go/chatt"),
              "route 'go-deepseek-v4-pro': provider 'opencode-go' has no endpoint 'chatt'; its endpoints: chat, responses");
}

BOOST_AUTO_TEST_CASE(route_deployment_appears_once) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "{ endpoint: deepseek-eu/api, weight: 1 }", "{ endpoint: deepseek/api, weight: 1 }");
  Location second = at(sources.gateway, "deepseek/api", 2);
  expectError(compileCatalog(sources), second,
              "deployment 'deepseek/api' appears twice in route 'fast-pool'; first at line " +
                  std::to_string(second.line - 1));
}

BOOST_AUTO_TEST_CASE(requires_is_checked_against_every_reachable_deployment) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "requires: { no_retain: true }", "requires: { european: true }");
  auto result = compileCatalog(sources);
  Location requires_at = at(sources.gateway, "requires");
  expectError(result, requires_at,
              "route 'fast-pool' requires european but deployment 'deepseek/api' of model 'deepseek-flash' is not european");
  expectError(result, requires_at,
              "route 'fast-pool' requires european but deployment 'anthropic/api' of model 'claude-sonnet-5-5' is not european");
  BOOST_TEST(result.diagnostics.size() == 2u, dump(result));
}

BOOST_AUTO_TEST_CASE(requires_is_satisfied_by_pinning_compliant_deployments) {
  CatalogSources sources = baselineSources();
  append(sources.gateway,
         "    - id: eu-only\n      models: [deepseek-flash]\n      deployments: [deepseek-eu/api]\n"
         "      requires: { european: true, no_retain: true }\n");
  auto catalog = compileClean(sources);
  BOOST_TEST(catalog->route("eu-only")->requirements.european);
}

BOOST_AUTO_TEST_CASE(model_governance_overrides_the_provider_for_requires) {
  CatalogSources sources = baselineSources();
  edit(sources.models, "  deepseek-flash:\n    clients: []\n",
       "  deepseek-flash:\n    clients: []\n    governance: { no_retain: false }\n");
  auto result = compileCatalog(sources);
  expectError(result, at(sources.gateway, "requires"),
              "route 'fast-pool' requires no_retain but deployment 'deepseek-eu/api' of model 'deepseek-flash' is not no_retain");
  BOOST_TEST(result.diagnostics.size() == 2u, dump(result));
}

BOOST_AUTO_TEST_CASE(model_governance_can_satisfy_requires_its_provider_does_not) {
  CatalogSources sources = baselineSources();
  append(sources.gateway,
         "    - id: private-go\n      models: [deepseek-v4-pro]\n      deployments: [opencode-go/chat]\n"
         "      requires: { no_retain: true }\n");
  auto result = compileCatalog(sources);
  expectError(result, atIn(sources.gateway, "private-go", "requires"),
              "deployment 'opencode-go/chat' of model 'deepseek-v4-pro' is not no_retain");
  edit(sources.models, "    cache_read_per_million: 0.14\n",
       "    cache_read_per_million: 0.14\n    governance: { no_retain: true }\n");
  compileClean(sources);
}

BOOST_AUTO_TEST_CASE(context_fallbacks_must_be_declared_models) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "context_fallbacks: [claude-sonnet-5-5]", "context_fallbacks: [claude-sonnet-5-5, claude-giant]");
  expectError(compileCatalog(sources), at(sources.gateway, "claude-giant"),
              "context_fallbacks of route 'fast-pool' names undeclared model 'claude-giant'");
}

BOOST_AUTO_TEST_CASE(default_model_must_be_a_declared_model_not_an_alias) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "default_model: claude-sonnet-5-5", "default_model: go-deepseek-v4-pro");
  expectError(compileCatalog(sources), at(sources.gateway, "go-deepseek-v4-pro"),
              "default_model names undeclared model 'go-deepseek-v4-pro'; 'go-deepseek-v4-pro' is an alias route of model 'deepseek-v4-pro'");
}

BOOST_AUTO_TEST_CASE(implicit_routes_serve_each_model_through_all_its_deployments) {
  auto catalog = compileClean(baselineSources());
  for (const Model& model : catalog->models) {
    const Route* route = catalog->route(model.id);
    BOOST_REQUIRE(route != nullptr);
    BOOST_TEST(route->kind == RouteKind::Implicit);
    BOOST_TEST(route->models == Ids{model.id}, boost::test_tools::per_element());
    BOOST_TEST(route->deployments.empty());
    BOOST_TEST(route->strategy == Strategy::Ordered);
    BOOST_TEST(!route->requirements.any());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
