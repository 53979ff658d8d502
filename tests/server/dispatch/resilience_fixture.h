#pragma once
// A catalog for the resilience rules: strategies, context windows, governance and who pays.
//
//   pool-model   window 8000, max_output 2000   deepseek/api, deepseek-eu/api, fireworks/api
//                route `pool`: weighted 5/3/2, context_fallbacks [tiny-model, mid-model, big-model]
//   busy-model   same three endpoints            route `busy`: least_busy
//   chain-model  same three endpoints            implicit route: ordered
//   tiny-model   window 4000                     fireworks/api
//   mid-model    window 32000, max_output 4000   anthropic/api
//   big-model    window 200000, max_output 64000 anthropic/api, deepseek-eu/api
//   open-model   no limits                       deepseek/api
//   mixed-model  window 8000                     deepseek/api (platform), opencode-go/chat (personal)
//                route `mixed`: context_fallbacks [mid-model]
//   safe-model                                   anthropic/api, deepseek-eu/api; route `safe` requires no_retain
//   eu-model                                     deepseek-eu/api; route `eu` requires european

#include <memory>
#include <stdexcept>

#include "catalog/compiler.h"

namespace sluice::testing {

inline std::shared_ptr<const catalog::Catalog> resilienceCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  anthropic: { kind: platform, secret: env:ANTHROPIC_API_KEY }
  deepseek: { kind: platform, secret: env:DEEPSEEK_API_KEY }
  fireworks: { kind: platform, secret: env:FIREWORKS_API_KEY }
  opencode-go: { kind: personal }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  anthropic:
    credential: anthropic
    governance: { european: false, no_retain: true }
    retry: { attempts: 2, backoff_ms: 200 }
    breaker: { failures: 3, cooldown_s: 30 }
    endpoints:
      api: { wire: anthropic, url: "https://api.anthropic.com" }
  deepseek:
    credential: deepseek
    endpoints:
      api: { wire: openai-chat, url: "https://api.deepseek.com" }
  deepseek-eu:
    credential: deepseek
    governance: { european: true, no_retain: true }
    endpoints:
      api: { wire: openai-chat, url: "https://eu.deepseek.example" }
  fireworks:
    credential: fireworks
    endpoints:
      api: { wire: openai-chat, url: "https://api.fireworks.example/v1" }
  opencode-go:
    credential: opencode-go
    endpoints:
      chat: { wire: openai-chat, url: "https://opencode.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  pool-model:
    limits: { context_window: 8000, max_output: 2000 }
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  busy-model:
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  chain-model:
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  tiny-model:
    limits: { context_window: 4000 }
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  mid-model:
    limits: { context_window: 32000, max_output: 4000 }
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  big-model:
    limits: { context_window: 200000, max_output: 64000 }
    pricing: { input_per_million: 3.00, output_per_million: 15.00 }
  open-model:
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  mixed-model:
    limits: { context_window: 8000 }
    pricing: { input_per_million: 0.10, output_per_million: 0.20 }
  safe-model:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  eu-model:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  pool-model: [deepseek/api, deepseek-eu/api, fireworks/api]
  busy-model: [deepseek/api, deepseek-eu/api, fireworks/api]
  chain-model: [deepseek/api, deepseek-eu/api, fireworks/api]
  tiny-model: [fireworks/api]
  mid-model: [anthropic/api]
  big-model: [anthropic/api, deepseek-eu/api]
  open-model: [deepseek/api]
  mixed-model: [deepseek/api, opencode-go/chat]
  safe-model: [anthropic/api, deepseek-eu/api]
  eu-model: [deepseek-eu/api]
)"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: chain-model
  routes:
    - id: pool
      models: [pool-model]
      strategy: weighted
      deployments:
        - { endpoint: deepseek/api, weight: 5 }
        - { endpoint: deepseek-eu/api, weight: 3 }
        - { endpoint: fireworks/api, weight: 2 }
      context_fallbacks: [tiny-model, mid-model, big-model]
    - id: busy
      models: [busy-model]
      strategy: least_busy
      deployments: [deepseek/api, deepseek-eu/api, fireworks/api]
    - id: mixed
      models: [mixed-model]
      context_fallbacks: [mid-model]
    - id: safe
      models: [safe-model]
      requires: { no_retain: true }
    - id: eu
      models: [eu-model]
      requires: { european: true }
)"};
  sources.env = {{"ANTHROPIC_API_KEY", "a"}, {"DEEPSEEK_API_KEY", "d"}, {"FIREWORKS_API_KEY", "f"}};
  auto result = catalog::compileCatalog(sources);
  if (!result.ok()) {
    std::string text;
    for (const auto& diagnostic : result.diagnostics) text += diagnostic.format() + "\n";
    throw std::runtime_error("resilience test catalog is invalid:\n" + text);
  }
  return result.catalog;
}

}  // namespace sluice::testing
