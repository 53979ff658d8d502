#include "tests/catalog/catalog_sources.h"

#include <boost/test/unit_test.hpp>

namespace sluice::catalog::testing {

namespace {

constexpr std::string_view kCredentials = R"(credentials:
  anthropic:
    kind: platform
    secret: env:ANTHROPIC_API_KEY
  deepseek:
    kind: platform
    secret: file:/run/secrets/deepseek
  deepseek-eu:
    kind: platform
    secret: env:DEEPSEEK_EU_KEY
  opencode-go:
    kind: personal
    description: Your OpenCode Go subscription key
)";

constexpr std::string_view kProviders = R"(providers:
  anthropic:
    display_name: Anthropic
    credential: anthropic
    headers: { anthropic-version: "2023-06-01" }
    user_agent: sluice/1
    governance: { european: false, no_retain: true }
    retry: { attempts: 2, backoff_ms: 200 }
    breaker: { failures: 5, cooldown_s: 30 }
    timeouts: { connect_ms: 5000, first_byte_ms: 60000, idle_ms: 120000 }
    endpoints:
      api: { wire: anthropic, url: "${ANTHROPIC_BASE_URL:-https://api.anthropic.com}" }
  deepseek:
    display_name: DeepSeek
    credential: deepseek
    governance: { no_retain: true }
    endpoints:
      api: { wire: openai-chat, url: "https://api.deepseek.com/v1/" }
  deepseek-eu:
    credential: deepseek-eu
    governance: { european: true, no_retain: true }
    endpoints:
      api: { wire: openai-chat, url: https://eu.deepseek.example/v1 }
  opencode-go:
    display_name: OpenCode Go
    credential: opencode-go
    endpoints:
      chat: { wire: openai-chat, url: https://opencode.ai/zen/go/v1 }
      responses: { wire: openai-responses, url: https://opencode.ai/zen/go/v1 }
)";

constexpr std::string_view kModels = R"(models:
  claude-sonnet-5-5:
    display_name: Claude Sonnet 5.5
    upstream_model: claude-sonnet-5-5-20260101
    clients: [claude]
    capabilities: [streaming, tools, vision, thinking, prompt_caching]
    limits: { context_window: 1000000, max_output: 128000 }
    pricing:
      input_per_million: 2.00
      output_per_million: 10.00
      cache_read_per_million: 0.20
      cache_write_per_million: 2.50
      long_context: { above_input_tokens: 200000, input_per_million: 4.00, output_per_million: 15.00 }
    governance: { no_retain: true }
    retired: [claude-sonnet-4-5, claude-sonnet-4]
  claude-haiku-5:
    display_name: Claude Haiku 5
    clients: [claude, opencode]
    capabilities: [streaming, tools]
    limits: { context_window: 200000 }
    pricing:
      input_per_million: 0.10
      output_per_million: 0.50
      long_context: { above_input_tokens: 100000, input_per_million: 0.50, output_per_million: 2.50 }
  deepseek-v4-pro:
    display_name: DeepSeek V4 Pro
    clients: [opencode, codex, openai]
    capabilities: [streaming, tools]
    limits: { context_window: 128000, max_output: 8000 }
    pricing:
      input_per_million: 0.55
      output_per_million: 2.19
      cache_read_per_million: 0.14
  deepseek-flash:
    clients: []
    pricing: { input_per_million: 0.07, output_per_million: 0.28 }
)";

constexpr std::string_view kDeployments = R"(deployments:
  claude-sonnet-5-5: [anthropic/api]
  claude-haiku-5: [anthropic/api]
  deepseek-v4-pro:
    - deepseek/api
    - endpoint: opencode-go/chat
      upstream_model: deepseek-v4-pro-go
      pricing: { cache_read_per_million: 0.132 }
  deepseek-flash: [deepseek/api, deepseek-eu/api]
)";

constexpr std::string_view kGateway = R"(gateway:
  default_model: claude-sonnet-5-5
  quotas:
    mode: warn
    windows:
      - { id: member-hourly, per: user, seconds: 3600, max_requests: 600, max_cost_usd: 20 }
      - { id: project-monthly, per: project, seconds: 2592000, max_cost_usd: 2000 }
  routes:
    - id: go-deepseek-v4-pro
      label: DeepSeek V4 Pro on your own Go key
      alias_of: deepseek-v4-pro
      deployments: [opencode-go/chat]
    - id: project-odoo-delivery
      when: { scope: { project: odoo-delivery } }
      models: claude-*
      deployments: [anthropic/api]
    - id: fast-pool
      models: [deepseek-flash]
      strategy: weighted
      deployments:
        - { endpoint: deepseek/api, weight: 3 }
        - { endpoint: deepseek-eu/api, weight: 1 }
      context_fallbacks: [claude-sonnet-5-5]
      requires: { no_retain: true }
)";

constexpr std::string_view kAccessRules = R"(entities:
  - entity: gateway_route/*
    default: open
    why: Every model route is reachable by every signed-in member.
  - entity: gateway_route/go-deepseek-v4-pro
    default: closed
    why: Personal Go keys are for the engineering group.
    allow: { group: [engineering] }
    deny: { project: [contractors] }
)";

size_t countOf(std::string_view text, std::string_view needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + 1)) {
    ++count;
  }
  return count;
}

Location locate(const SourceText& file, size_t pos) {
  std::string_view before = std::string_view(file.text).substr(0, pos);
  int line = static_cast<int>(countOf(before, "\n")) + 1;
  size_t line_start = before.rfind('\n');
  int column = static_cast<int>(line_start == std::string_view::npos ? pos + 1 : pos - line_start);
  return {file.path, line, column};
}

}  // namespace

CatalogSources baselineSources() {
  CatalogSources sources;
  sources.credentials = SourceText{"services/ai/credentials.yaml", std::string(kCredentials)};
  sources.providers = SourceText{"services/ai/providers.yaml", std::string(kProviders)};
  sources.models = SourceText{"services/ai/models.yaml", std::string(kModels)};
  sources.deployments = SourceText{"services/ai/deployments.yaml", std::string(kDeployments)};
  sources.gateway = SourceText{"services/ai/gateway.yaml", std::string(kGateway)};
  sources.access_rules = SourceText{"services/access-control/rules.yaml", std::string(kAccessRules)};
  sources.env = {{"ANTHROPIC_API_KEY", "sk-ant-test"}, {"DEEPSEEK_EU_KEY", "sk-eu-test"}};
  sources.secret_files = {{"/run/secrets/deepseek", "sk-deepseek-test\n"}};
  return sources;
}

void edit(std::optional<SourceText>& file, std::string_view from, std::string_view to) {
  BOOST_REQUIRE(file.has_value());
  BOOST_REQUIRE_MESSAGE(countOf(file->text, from) == 1,
                        "'" << from << "' must occur exactly once in " << file->path);
  file->text.replace(file->text.find(from), from.size(), to);
}

void append(std::optional<SourceText>& file, std::string_view text) {
  BOOST_REQUIRE(file.has_value());
  file->text += text;
}

Location at(const std::optional<SourceText>& file, std::string_view needle, int occurrence) {
  BOOST_REQUIRE(file.has_value());
  size_t pos = std::string::npos;
  for (int i = 0; i < occurrence; ++i) {
    pos = file->text.find(needle, pos == std::string::npos ? 0 : pos + 1);
    BOOST_REQUIRE_MESSAGE(pos != std::string::npos, "'" << needle << "' not in " << file->path);
  }
  return locate(*file, pos);
}

Location atIn(const std::optional<SourceText>& file, std::string_view context, std::string_view needle) {
  BOOST_REQUIRE(file.has_value());
  size_t start = file->text.find(context);
  BOOST_REQUIRE_MESSAGE(start != std::string::npos, "'" << context << "' not in " << file->path);
  size_t pos = file->text.find(needle, start);
  BOOST_REQUIRE_MESSAGE(pos != std::string::npos, "'" << needle << "' not after '" << context << "'");
  return locate(*file, pos);
}

std::string dump(const CompileResult& result) {
  std::string out;
  for (const Diagnostic& d : result.diagnostics) out += "\n  " + d.format();
  return out.empty() ? " (no diagnostics)" : out;
}

void expectDiagnostic(const CompileResult& result, Severity severity, const Location& where,
                      std::string_view text) {
  bool found = false;
  for (const Diagnostic& d : result.diagnostics) {
    if (d.severity == severity && d.file == where.file && d.line == where.line &&
        (where.column == 0 || d.column == where.column) &&
        d.message.find(text) != std::string::npos) {
      found = true;
    }
  }
  BOOST_TEST(found, "expected at " << where.file << ":" << where.line << ":" << where.column
                                   << " a diagnostic containing \"" << text << "\"; got:"
                                   << dump(result));
}

void expectError(const CompileResult& result, const Location& where, std::string_view text) {
  BOOST_TEST(!result.ok(), "the catalog compiled although it should not have");
  expectDiagnostic(result, Severity::Error, where, text);
}

std::shared_ptr<const Catalog> compileClean(const CatalogSources& sources) {
  CompileResult result = compileCatalog(sources);
  BOOST_TEST(result.diagnostics.empty(), "unexpected diagnostics:" << dump(result));
  BOOST_REQUIRE(result.ok());
  return result.catalog;
}

}  // namespace sluice::catalog::testing
