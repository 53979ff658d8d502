// README.md's table of the shipped catalog's models, held against the catalog itself
// (services/, compiled by the same compileCatalog() the gateway loads): every model and every
// explicit route once, each with its kind and its deployments in failover order, personal-key
// deployments marked. A model added to, removed from or re-deployed in services/ without the README
// following fails here. This test reads files; the compiler it drives does not.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "catalog/compiler.h"
#include "tests/docs/markdown_table.h"
#include "tests/docs/repository_files.h"

namespace sluice::docs {
namespace {

constexpr std::string_view kMarker = "<!-- shipped-models";

std::shared_ptr<const catalog::Catalog> shippedCatalog() {
  catalog::CompileResult result = catalog::compileCatalog(shippedCatalogSources());
  BOOST_REQUIRE_MESSAGE(result.ok(), "the shipped catalog does not compile");
  return result.catalog;
}

// README's rows by the id in their first cell.
std::map<std::string, TableRow> readmeRows() {
  const auto rows = tableAfter(repositoryFile("README.md"), kMarker);
  BOOST_REQUIRE_MESSAGE(rows.has_value(), "README.md has no table after a '" << kMarker << "' line");
  std::map<std::string, TableRow> by_id;
  for (const TableRow& row : *rows) {
    BOOST_REQUIRE_MESSAGE(row.size() >= 3, "README.md: a model row needs three cells: " << row.front());
    const auto ids = codeSpans(row[0]);
    BOOST_REQUIRE_MESSAGE(ids.size() == 1, "README.md: a model row's first cell is one `id`: " << row[0]);
    BOOST_TEST(by_id.emplace(ids.front(), row).second, "README.md lists " << ids.front() << " twice");
  }
  return by_id;
}

// The catalog's ids README must list: every model, then every explicit (not implicit) route.
std::set<std::string> catalogIds(const catalog::Catalog& shipped) {
  std::set<std::string> ids;
  for (const catalog::Model& model : shipped.models) ids.insert(model.id);
  for (const catalog::Route& route : shipped.routes) {
    if (route.kind != catalog::RouteKind::Implicit) ids.insert(route.id);
  }
  return ids;
}

// The endpoints a deployments cell names (`provider/endpoint` spans), in order.
std::vector<std::string> endpointsIn(const std::string& cell) {
  std::vector<std::string> endpoints;
  for (const std::string& span : codeSpans(cell)) {
    if (span.find('/') != std::string::npos && !span.starts_with('/')) endpoints.push_back(span);
  }
  return endpoints;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return "[" + text + "]";
}

bool anyPersonal(const catalog::Catalog& shipped, const std::vector<std::string>& endpoint_keys) {
  return std::ranges::any_of(endpoint_keys, [&](const std::string& key) {
    const catalog::Provider* provider = shipped.provider(key.substr(0, key.find('/')));
    const catalog::Credential* credential = provider ? shipped.credential(provider->credential_id) : nullptr;
    return credential && credential->kind == catalog::CredentialKind::Personal;
  });
}

void expectDeployments(const catalog::Catalog& shipped, const std::string& id, const std::string& cell,
                       const std::vector<std::string>& expected) {
  const auto listed = endpointsIn(cell);
  BOOST_TEST((listed == expected), "README.md: " << id << "'s deployments are " << joined(listed)
                                                << "; the catalog's, in failover order: " << joined(expected));
  const bool personal = anyPersonal(shipped, expected);
  BOOST_TEST(personal == (cell.find("own key") != std::string::npos),
             "README.md: " << id << (personal ? " is served on a member's own key: say 'own key'"
                                              : " is served on platform keys only: no 'own key'"));
}

BOOST_AUTO_TEST_SUITE(readme_models)

BOOST_AUTO_TEST_CASE(readme_lists_every_model_and_route_of_the_shipped_catalog_and_nothing_else) {
  const auto shipped = shippedCatalog();
  const auto rows = readmeRows();
  const std::set<std::string> expected = catalogIds(*shipped);
  for (const std::string& id : expected) BOOST_TEST(rows.contains(id), "README.md does not list " << id);
  for (const auto& [id, row] : rows) BOOST_TEST(expected.contains(id), "README.md lists " << id << ", which services/ does not declare");
}

BOOST_AUTO_TEST_CASE(readme_gives_each_model_its_kind_and_its_deployments_in_failover_order) {
  const auto shipped = shippedCatalog();
  const auto rows = readmeRows();
  for (const catalog::Model& model : shipped->models) {
    const auto row = rows.find(model.id);
    if (row == rows.end()) continue;  // reported by the case above
    BOOST_TEST(firstWord(row->second[1]) == catalog::toString(model.kind), "README.md: " << model.id << "'s kind");
    const bool is_default = model.id == shipped->default_model;
    BOOST_TEST(is_default == (row->second[1].find("default") != std::string::npos),
               "README.md: the default model (" << shipped->default_model << ") and only it says 'default'");
    std::vector<std::string> endpoints;
    for (const catalog::Deployment& deployment : shipped->deploymentsOf(model.id)) endpoints.push_back(deployment.endpoint_key);
    expectDeployments(*shipped, model.id, row->second[2], endpoints);
  }
}

BOOST_AUTO_TEST_CASE(readme_gives_each_route_its_kind_its_models_and_its_deployments) {
  const auto shipped = shippedCatalog();
  const auto rows = readmeRows();
  for (const catalog::Route& route : shipped->routes) {
    const auto row = rows.find(route.id);
    if (route.kind == catalog::RouteKind::Implicit || row == rows.end()) continue;
    BOOST_TEST(firstWord(row->second[1]) == catalog::toString(route.kind), "README.md: route " << route.id << "'s kind");
    BOOST_TEST((codeSpans(row->second[1]) == route.models),
               "README.md: route " << route.id << " serves " << joined(route.models));
    std::vector<std::string> endpoints;
    for (const catalog::RouteDeployment& deployment : route.deployments) endpoints.push_back(deployment.endpoint_key);
    if (endpoints.empty()) {
      for (const std::string& model : route.models) {
        for (const catalog::Deployment& deployment : shipped->deploymentsOf(model)) endpoints.push_back(deployment.endpoint_key);
      }
    }
    expectDeployments(*shipped, route.id, row->second[2], endpoints);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::docs
