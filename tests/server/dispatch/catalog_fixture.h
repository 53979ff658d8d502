#pragma once
// A small catalog compiled from strings, shared by the dispatch tests.

#include <memory>
#include <stdexcept>

#include "catalog/compiler.h"

namespace sluice::testing {

inline std::shared_ptr<const catalog::Catalog> dispatchCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  anthropic: { kind: platform, secret: env:ANTHROPIC_API_KEY }
  deepseek: { kind: platform, secret: env:DEEPSEEK_API_KEY }
  opencode-go: { kind: personal }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  anthropic:
    credential: anthropic
    endpoints:
      api: { wire: anthropic, url: "https://api.anthropic.com" }
  deepseek:
    credential: deepseek
    endpoints:
      api: { wire: openai-chat, url: "https://api.deepseek.com" }
  opencode-go:
    credential: opencode-go
    endpoints:
      chat: { wire: openai-chat, url: "https://opencode.example/v1" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  claude-sonnet-5-5:
    clients: [claude]
    limits: { context_window: 1000000, max_output: 128000 }
    pricing: { input_per_million: 2.00, output_per_million: 10.00, cache_read_per_million: 0.20, cache_write_per_million: 2.50 }
    retired: [claude-sonnet-4-5]
  claude-haiku-5-5:
    clients: [claude]
    pricing:
      input_per_million: 0.10
      output_per_million: 0.50
      long_context: { above_input_tokens: 100000, input_per_million: 0.50, output_per_million: 2.50 }
  deepseek-v4-pro:
    clients: [opencode]
    pricing: { input_per_million: 0.55, output_per_million: 2.19, cache_read_per_million: 0.14 }
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  claude-sonnet-5-5: [anthropic/api]
  claude-haiku-5-5: [anthropic/api]
  deepseek-v4-pro:
    - deepseek/api
    - endpoint: opencode-go/chat
      upstream_model: ds-v4-pro
      pricing: { cache_read_per_million: 0.132 }
)"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: claude-sonnet-5-5
  routes:
    - id: go-deepseek-v4-pro
      label: DeepSeek V4 Pro on your own Go key
      alias_of: deepseek-v4-pro
      deployments: [opencode-go/chat]
    - id: project-odoo-delivery
      when: { scope: { project: odoo-delivery } }
      models: claude-*
      deployments: [anthropic/api]
)"};
  sources.env = {{"ANTHROPIC_API_KEY", "a"}, {"DEEPSEEK_API_KEY", "d"}};
  auto result = catalog::compileCatalog(sources);
  if (!result.ok()) {
    std::string text;
    for (const auto& diagnostic : result.diagnostics) text += diagnostic.format() + "\n";
    throw std::runtime_error("test catalog is invalid:\n" + text);
  }
  return result.catalog;
}

}  // namespace sluice::testing
