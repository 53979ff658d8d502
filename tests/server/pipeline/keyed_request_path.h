#pragma once
// The request path in-process with its storage faked, not skipped: RequestPath
// (tests/server/http/request_path_harness.h) over a Gateway whose identity is an Authenticator over
// tests/fakes' FakeKeyDirectory and a QuotaStore over FakeQuotaCounters, and whose Responses store
// keeps its items in FakeResponseItems. Members and keys are added through identity's own functions
// over the fake tables, as sluicectl adds them over PostgreSQL; API keys are required, as in a
// gateway with a database.

#include <memory>
#include <string>

#include "catalog/compiler.h"
#include "server/config/catalog_loader.h"
#include "server/identity/authenticator.h"
#include "server/identity/key_store.h"
#include "server/identity/member_store.h"
#include "server/identity/quota_store.h"
#include "server/responses/store.h"
#include "tests/fakes/fake_key_directory.h"
#include "tests/fakes/fake_quota_counters.h"
#include "tests/fakes/fake_response_items.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {

// One model per lane, all on the Anthropic wire: `claude` at a trusted_raw endpoint (passthrough
// for /v1/messages, translated for the OpenAI formats), `claude-public` at a public one (masked:
// e-mail addresses), `embed` an embedding model at a public OpenAI endpoint. `quota_windows`: the
// gateway's quota windows (YAML flow list), none when empty.
inline std::shared_ptr<const catalog::Catalog> keyedCatalog(const std::string& quota_windows = "") {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  raw: { kind: platform, secret: env:RAW_KEY }
  public: { kind: platform, secret: env:PUBLIC_KEY }
  openai: { kind: platform, secret: env:OPENAI_KEY }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  raw:
    credential: raw
    endpoints:
      api: { wire: anthropic, url: "https://raw.example", trust: trusted_raw }
  public:
    credential: public
    endpoints:
      api: { wire: anthropic, url: "https://public.example" }
  openai:
    credential: openai
    endpoints:
      api: { wire: openai-chat, url: "https://openai.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  claude:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  claude-public:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  embed: { kind: embedding, pricing: { input_per_million: 0.02 } }
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  claude: [raw/api]
  claude-public: [public/api]
  embed: [openai/api]
)"};
  std::string gateway = R"(
gateway:
  default_model: claude
  data_protection:
    mask: [email]
)";
  if (!quota_windows.empty()) gateway += "  quotas:\n    mode: enforce\n    windows: " + quota_windows + "\n";
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", gateway};
  sources.env = {{"RAW_KEY", "sk-raw"}, {"PUBLIC_KEY", "sk-public"}, {"OPENAI_KEY", "sk-openai"}};
  auto result = catalog::compileCatalog(sources);
  config::attachDataProtection(result);
  if (!result.ok()) {
    std::string text;
    for (const auto& diagnostic : result.diagnostics) text += diagnostic.format() + "\n";
    throw std::runtime_error("keyed request path catalog is invalid:\n" + text);
  }
  return result.catalog;
}

// 2026-11-29T21:43:20Z: when members and keys are created. Requests run on the system clock.
inline const std::chrono::system_clock::time_point kKeyedEpoch{std::chrono::seconds(1'795'988'600)};

class KeyedRequestPath {
 public:
  explicit KeyedRequestPath(std::shared_ptr<const catalog::Catalog> catalog = keyedCatalog())
      : path(std::move(catalog), wiring()) {}

  std::shared_ptr<fakes::FakeKeyDirectory> tables = std::make_shared<fakes::FakeKeyDirectory>();
  std::shared_ptr<fakes::FakeQuotaCounters> counters = std::make_shared<fakes::FakeQuotaCounters>();
  std::shared_ptr<fakes::FakeResponseItems> items = std::make_shared<fakes::FakeResponseItems>();
  std::shared_ptr<identity::Authenticator> authenticator =
      std::make_shared<identity::Authenticator>(tables, nullptr);
  RequestPath path;

  // Adds member `user` (identity::addMember) and returns a new API key of theirs (createApiKey).
  std::string newMemberKey(const std::string& user) {
    identity::NewMember member;
    member.name = user;
    identity::addMember(*tables, member, kKeyedEpoch).value();
    identity::NewApiKey request;
    request.user = user;
    return identity::createApiKey(*tables, *tables, request, kKeyedEpoch).value().key;
  }

  // Revokes `key` as `sluicectl keys revoke` does; the gateway's cache is dropped so the next
  // request sees it at once (the cache's TTL is the Authenticator's own test).
  void revoke(const std::string& key) {
    const auto id = identity::keyIdFrom(key).value();
    BOOST_REQUIRE((identity::revokeApiKey(*tables, id, kKeyedEpoch) == identity::RevokeResult::Revoked));
    authenticator->forgetAll();
  }

 private:
  http::Wiring wiring() {
    http::Wiring wiring;
    wiring.identity.authenticator = authenticator;
    wiring.identity.quotas = std::make_shared<identity::QuotaStore>(counters);
    wiring.responses = std::make_shared<responses::Store>(items, responses::StoreOptions{});
    return wiring;
  }
};

}  // namespace sluice::testing
