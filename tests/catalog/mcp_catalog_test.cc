// MCP servers in the catalog: `wire: mcp` endpoints, their `auth_header:`, that they are never a
// model's deployment, and the access entities mcp_server/<provider> and mcp_tool/<provider>/<tool>.
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::append;
using testing::at;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

constexpr std::string_view kToolServer = R"(
  github:
    display_name: GitHub
    credential: anthropic
    trust: public
    endpoints:
      mcp: { wire: mcp, url: "https://api.githubcopilot.com/mcp/", auth_header: X-GitHub-Token }
)";

CatalogSources withToolServer() {
  CatalogSources sources = baselineSources();
  append(sources.providers, kToolServer);
  return sources;
}

std::string rule(std::string_view entity) {
  return "  - entity: " + std::string(entity) + "\n    default: closed\n    why: test\n";
}

BOOST_AUTO_TEST_SUITE(mcp_catalog)

BOOST_AUTO_TEST_CASE(an_mcp_server_is_an_endpoint_of_wire_mcp_with_its_own_auth_header) {
  auto catalog = compileClean(withToolServer());
  const Endpoint* endpoint = catalog->endpoint("github/mcp");
  BOOST_REQUIRE(endpoint != nullptr);
  BOOST_TEST((endpoint->wire == Wire::Mcp));
  BOOST_TEST(endpoint->url == "https://api.githubcopilot.com/mcp");
  BOOST_TEST(endpoint->auth_header == "X-GitHub-Token");
  BOOST_TEST((endpoint->trust == Trust::Public));
  BOOST_TEST(toString(Wire::Mcp) == "mcp");
  BOOST_TEST((parseWire("mcp") == Wire::Mcp));
}

BOOST_AUTO_TEST_CASE(auth_header_is_for_mcp_servers_and_must_be_a_plain_header_name) {
  {
    CatalogSources sources = withToolServer();
    edit(sources.providers, "X-GitHub-Token", "Mcp-Session-Id");
    expectError(compileCatalog(sources), at(sources.providers, "Mcp-Session-Id"),
                "auth_header of endpoint 'github/mcp' must be a header name");
  }
  {
    CatalogSources sources = withToolServer();
    edit(sources.providers, "X-GitHub-Token", "\"X Token\"");
    expectError(compileCatalog(sources), at(sources.providers, "\"X Token\""),
                "auth_header of endpoint 'github/mcp' must be a header name");
  }
  {
    CatalogSources sources = baselineSources();
    append(sources.providers, R"(
  chatty:
    credential: anthropic
    endpoints:
      api: { wire: anthropic, url: "https://chatty.example", auth_header: X-Key }
)");
    expectError(compileCatalog(sources), at(sources.providers, "auth_header"),
                "auth_header of endpoint 'chatty/api' is for MCP servers (wire: mcp)");
  }
}

BOOST_AUTO_TEST_CASE(an_mcp_server_is_never_a_models_deployment) {
  CatalogSources sources = withToolServer();
  edit(sources.deployments, "claude-haiku-5: [anthropic/api]", "claude-haiku-5: [github/mcp]");
  expectError(compileCatalog(sources), at(sources.deployments, "github/mcp"),
              "endpoint 'github/mcp' is an MCP server (wire: mcp), served at /mcp/github, not a deployment of a model");
}

BOOST_AUTO_TEST_CASE(mcp_entities_name_servers_and_tools_with_patterns) {
  CatalogSources sources = withToolServer();
  append(sources.access_rules, rule("mcp_server/github"));
  append(sources.access_rules, rule("mcp_server/*"));
  append(sources.access_rules, rule("mcp_tool/github/delete_*"));
  append(sources.access_rules, rule("mcp_tool/github/create_issue"));
  append(sources.access_rules, rule("mcp_tool/github/*"));
  BOOST_TEST(compileClean(sources)->access_rules.size() == 7u);
}

BOOST_AUTO_TEST_CASE(mcp_entities_must_name_an_mcp_server_in_their_shape) {
  struct Case {
    std::string_view entity;
    std::string_view message;
  };
  const Case cases[] = {
      {"mcp_server/anthropic", "entity 'mcp_server/anthropic' names no MCP server: provider 'anthropic' has no endpoint with wire: mcp"},
      {"mcp_server/jira", "entity 'mcp_server/jira' names no MCP server"},
      {"mcp_tool/jira/create", "entity 'mcp_tool/jira/create' names no MCP server"},
      {"mcp_server/", "entity 'mcp_server/' must be mcp_server/<provider> or mcp_server/*"},
      {"mcp_server/github/x", "must be mcp_server/<provider> or mcp_server/*"},
      {"mcp_tool/github", "entity 'mcp_tool/github' must be mcp_tool/<provider>/<tool>"},
      {"mcp_tool/github/", "must be mcp_tool/<provider>/<tool>"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.entity) {
      CatalogSources sources = withToolServer();
      append(sources.access_rules, rule(c.entity));
      expectError(compileCatalog(sources), at(sources.access_rules, c.entity), c.message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
