// gateway.yaml's identity settings: the identity mode and the trusted identity-aware proxies
// (`trusted_proxies`: header, the address blocks judged one by one and as a whole, match).
#include <boost/test/unit_test.hpp>

#include "catalog/compiler.h"
#include "tests/catalog/catalog_sources.h"

namespace sluice::catalog {
namespace {

using testing::at;
using testing::atIn;
using testing::baselineSources;
using testing::compileClean;
using testing::edit;
using testing::expectError;

BOOST_AUTO_TEST_SUITE(parse_identity)

BOOST_AUTO_TEST_CASE(identity_defaults_to_key_without_trusted_proxies) {
  auto catalog = compileClean(baselineSources());
  BOOST_TEST((catalog->identity.mode == IdentityMode::Key));
  BOOST_TEST(!catalog->identity.trusted_proxies.has_value());
}

BOOST_AUTO_TEST_CASE(identity_mode_and_trusted_proxies_are_read) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  quotas:\n",
       "  identity: either\n"
       "  trusted_proxies: { header: X-Forwarded-Email, from: [10.0.0.0/8, 127.0.0.1/32, \"fd7a:115c:a1e0::/48\"], "
       "match: email }\n"
       "  quotas:\n");
  auto catalog = compileClean(sources);
  BOOST_TEST((catalog->identity.mode == IdentityMode::Either));
  BOOST_REQUIRE(catalog->identity.trusted_proxies.has_value());
  const TrustedProxies& proxies = *catalog->identity.trusted_proxies;
  BOOST_TEST(proxies.header == "x-forwarded-email");
  BOOST_TEST((proxies.match == ProxyMatch::Email));
  BOOST_REQUIRE(proxies.from.size() == 3u);
  BOOST_TEST(proxies.trusts(*parseIpAddress("10.9.8.7")));
  BOOST_TEST(proxies.trusts(*parseIpAddress("127.0.0.1")));
  BOOST_TEST(proxies.trusts(*parseIpAddress("fd7a:115c:a1e0::5")));
  BOOST_TEST(!proxies.trusts(*parseIpAddress("127.0.0.2")));
  BOOST_TEST(!proxies.trusts(*parseIpAddress("192.168.1.1")));

  edit(sources.gateway, "match: email", "match: name");
  edit(sources.gateway, "identity: either", "identity: certificate");
  auto named = compileClean(sources);
  BOOST_TEST((named->identity.mode == IdentityMode::Certificate));
  BOOST_TEST((named->identity.trusted_proxies->match == ProxyMatch::Name));
}

BOOST_AUTO_TEST_CASE(identity_mode_must_be_known) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  quotas:\n", "  identity: mtls\n  quotas:\n");
  expectError(compileCatalog(sources), at(sources.gateway, "mtls"),
              "identity must be one of: key, certificate, either; got 'mtls'");
}

BOOST_AUTO_TEST_CASE(trusted_proxies_are_checked) {
  const auto refused = [](std::string_view declaration, std::string_view where, std::string_view message) {
    CatalogSources sources = baselineSources();
    edit(sources.gateway, "  quotas:\n", "  trusted_proxies: " + std::string(declaration) + "\n  quotas:\n");
    expectError(compileCatalog(sources), at(sources.gateway, where), message);
  };
  refused("{ header: X-Forwarded-Email, from: [0.0.0.0/0] }", "0.0.0.0/0",
          "from of trusted_proxies: '0.0.0.0/0' trusts every address, so anyone could name any member");
  refused("{ header: X-Forwarded-Email, from: [\"::/0\"] }", "\"::/0", "trusts every address");
  // No one block is everyone, the list is.
  refused("{ header: X-Forwarded-Email, from: [0.0.0.0/1, 128.0.0.0/1] }", "[0.0.0.0/1",
          "from of trusted_proxies: together these blocks trust every IPv4 address, so anyone could name any member");
  refused("{ header: X-Forwarded-Email, from: [\"::/1\", \"8000::/1\"] }", "[\"::/1",
          "together these blocks trust every IPv4 address");
  refused("{ header: X-Forwarded-Email, from: [\"2000::/4\", \"3000::/4\", 10.0.0.0/8] }", "[\"2000::/4",
          "together these blocks trust every public IPv6 address");
  refused("{ header: X-Forwarded-Email, from: [10.0.0.1/8] }", "10.0.0.1/8",
          "from of trusted_proxies: '10.0.0.1/8' has bits set past its /8 prefix");
  refused("{ header: X-Forwarded-Email, from: [proxy.internal] }", "proxy.internal",
          "from of trusted_proxies: 'proxy.internal' is not an address block");
  refused("{ header: X-Forwarded-Email, from: [] }", "[]", "from of trusted_proxies must list at least one");
  refused("{ header: Authorization, from: [10.0.0.0/8] }", "Authorization",
          "header of trusted_proxies may not be 'Authorization'");
  refused("{ header: x-sluice-scope-project, from: [10.0.0.0/8] }", "x-sluice-scope-project",
          "header of trusted_proxies may not be");
  refused("{ header: \"X Email\", from: [10.0.0.0/8] }", "\"X Email", "must be an HTTP header name");
  refused("{ from: [10.0.0.0/8] }", "trusted_proxies", "trusted_proxies needs header");
  refused("{ header: X-Forwarded-Email }", "trusted_proxies", "trusted_proxies needs from");
  refused("{ header: X-Forwarded-Email, from: [10.0.0.0/8], match: subject }", "subject",
          "match of trusted_proxies must be one of: name, email; got 'subject'");
  refused("{ header: X-Forwarded-Email, from: [10.0.0.0/8], trust: all }", "trust:",
          "unknown key 'trust' in trusted_proxies");
}

BOOST_AUTO_TEST_CASE(the_identity_header_is_never_forwarded_to_a_provider) {
  CatalogSources sources = baselineSources();
  edit(sources.gateway, "  quotas:\n", "  trusted_proxies: { header: X-Forwarded-Email, from: [10.0.0.0/8] }\n  quotas:\n");
  edit(sources.providers, "    display_name: DeepSeek\n", "    display_name: DeepSeek\n    forward_headers: [x-forwarded-email]\n");
  expectError(compileCatalog(sources), atIn(sources.providers, "  deepseek:\n", "deepseek"),
              "forward_headers of provider 'deepseek' may not name 'x-forwarded-email': it is the trusted proxies' "
              "identity header");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::catalog
