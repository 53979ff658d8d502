// /admin/connect: what a member pastes into their client to use this gateway, built from the
// catalog (the models advertised to each client family) and the address they reached it at.
#include <algorithm>

#include "server/admin/api.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr const char* kKeyPlaceholder = "<your sk-sluice-... key>";

std::vector<const catalog::Model*> modelsFor(const catalog::Catalog& catalog, catalog::ClientFamily family) {
  std::vector<const catalog::Model*> out;
  for (const auto& model : catalog.models) {
    if (model.advertisedTo(family)) out.push_back(&model);
  }
  return out;
}

// Claude Code budgets a model's context by its id: "[1m]" tells it the window is a million tokens.
std::string claudeId(const catalog::Model& model) {
  const bool million = model.limits.context_window && *model.limits.context_window >= 1'000'000;
  return million ? model.id + "[1m]" : model.id;
}

// JSON text (also a Python string literal) that never throws: bytes that are not UTF-8 (a hostile
// Host header in the base URL) become U+FFFD.
template <class Json>
std::string jsonText(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// A POSIX shell word that is `value` whatever it holds: single-quoted, a ' inside as '\''. So
// "claude-sonnet-5-5[1m]" is never a glob (zsh refuses an unmatched one) and a Host header cannot
// smuggle a command into a pasted line.
std::string shellQuote(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// The same variables as `export NAME='value'` lines for a shell profile and as the "env" object
// Claude Code reads from ~/.claude/settings.json, in the order given.
using EnvVars = std::vector<std::pair<std::string, std::string>>;

std::string exportLines(const EnvVars& vars) {
  std::string out;
  for (const auto& [name, value] : vars) out += "export " + name + "=" + shellQuote(value) + "\n";
  return out;
}

std::string settingsJson(const EnvVars& vars) {
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const auto& [name, value] : vars) env[name] = value;
  return jsonText(nlohmann::ordered_json{{"env", env}}, 2) + "\n";
}

std::string tomlString(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Reply connectProfile(ConsoleContext& context, const identity::Caller& caller, const std::string& base_url) {
  const auto catalog = context.gateway.catalog();
  json out = {{"user", caller.user}, {"base_url", base_url}, {"version", catalog->version}};

  // Claude Code: environment variables (Anthropic wire at the gateway's root).
  const auto claude = modelsFor(*catalog, catalog::ClientFamily::Claude);
  json claude_models = json::array();
  for (const auto* model : claude) claude_models.push_back({{"id", claudeId(*model)}, {"name", model->display_name}});
  EnvVars claude_env = {{"ANTHROPIC_BASE_URL", base_url}, {"ANTHROPIC_AUTH_TOKEN", kKeyPlaceholder}};
  if (!claude.empty()) {
    // The catalog's default model when Claude Code may list it, else the first it may.
    const catalog::Model* main_model = claude.front();
    for (const auto* model : claude) {
      if (model->id == catalog->default_model) main_model = model;
    }
    claude_env.emplace_back("ANTHROPIC_MODEL", claudeId(*main_model));
    // Claude Code's opus/sonnet/haiku slots, each filled by the first model whose id names it.
    for (const auto& [slot, word] : {std::pair{"OPUS", "opus"}, std::pair{"SONNET", "sonnet"}, std::pair{"HAIKU", "haiku"}}) {
      for (const auto* model : claude) {
        if (model->id.find(word) != std::string::npos) {
          claude_env.emplace_back(std::string("ANTHROPIC_DEFAULT_") + slot + "_MODEL", claudeId(*model));
          break;
        }
      }
    }
  }
  out["claude_code"] = {{"models", claude_models}, {"env", exportLines(claude_env)}, {"settings_json", settingsJson(claude_env)}};

  // Codex: a model provider on the Responses wire.
  const auto codex = modelsFor(*catalog, catalog::ClientFamily::Codex);
  json codex_models = json::array();
  for (const auto* model : codex) codex_models.push_back({{"id", model->id}, {"name", model->display_name}});
  std::string toml;
  if (!codex.empty()) toml += "model = " + tomlString(codex.front()->id) + "\n";
  toml += "model_provider = \"sluice\"\n\n[model_providers.sluice]\nname = \"Sluice\"\nbase_url = " +
          tomlString(base_url + "/v1") + "\nenv_key = \"SLUICE_API_KEY\"\nwire_api = \"responses\"\n";
  out["codex"] = {{"models", codex_models},
                  {"config_toml", toml},
                  {"env", exportLines({{"SLUICE_API_KEY", kKeyPlaceholder}})}};

  // OpenCode: an OpenAI-compatible provider with the models it may list.
  const auto opencode = modelsFor(*catalog, catalog::ClientFamily::OpenCode);
  json opencode_models = json::object();
  for (const auto* model : opencode) {
    json entry = {{"name", model->display_name}};
    if (model->limits.context_window || model->limits.max_output) {
      entry["limit"] = {{"context", model->limits.context_window.value_or(0)},
                        {"output", model->limits.max_output.value_or(0)}};
    }
    opencode_models[model->id] = entry;
  }
  const json opencode_json = {{"$schema", "https://opencode.ai/config.json"},
                              {"provider",
                               {{"sluice",
                                 {{"npm", "@ai-sdk/openai-compatible"},
                                  {"name", "Sluice"},
                                  {"options", {{"baseURL", base_url + "/v1"}, {"apiKey", "{env:SLUICE_API_KEY}"}}},
                                  {"models", opencode_models}}}}}};
  out["opencode"] = {{"config_json", jsonText(opencode_json, 2)}};

  // MCP: the federated endpoint, one line per agent (docs/mcp.md); absent without MCP servers.
  json mcp_servers = json::array();
  for (const catalog::Provider& provider : catalog->providers) {
    if (std::ranges::any_of(provider.endpoints, [](const catalog::Endpoint& e) { return e.wire == catalog::Wire::Mcp; })) {
      mcp_servers.push_back(provider.id);
    }
  }
  if (!mcp_servers.empty()) {
    const std::string url = base_url + "/mcp";
    const json opencode_mcp = {
        {"$schema", "https://opencode.ai/config.json"},
        {"mcp", {{"sluice", {{"type", "remote"},
                             {"url", url},
                             {"headers", {{"Authorization", "Bearer {env:SLUICE_API_KEY}"}}}}}}}};
    out["mcp"] = {{"url", url},
                  {"servers", mcp_servers},
                  {"claude_code", "claude mcp add --transport http sluice " + url + " --header \"Authorization: Bearer " +
                                      std::string(kKeyPlaceholder) + "\"\n"},
                  {"codex_toml", "[mcp_servers.sluice]\nurl = " + tomlString(url) +
                                     "\nbearer_token_env_var = \"SLUICE_API_KEY\"\n"},
                  {"opencode_json", jsonText(opencode_mcp, 2)}};
  }

  // The SDKs.
  const std::string any_model = catalog->default_model;
  out["sdks"] = {
      {"anthropic_python", "from anthropic import Anthropic\nclient = Anthropic(base_url=" + jsonText(json(base_url)) +
                               ", api_key=\"" + kKeyPlaceholder + "\")\nprint(client.messages.create(model=\"" +
                               any_model + "\", max_tokens=256,\n    messages=[{\"role\": \"user\", \"content\": \"Hello\"}]).content[0].text)\n"},
      {"openai_python", "from openai import OpenAI\nclient = OpenAI(base_url=" + jsonText(json(base_url + "/v1")) + ", api_key=\"" +
                            kKeyPlaceholder + "\")\nprint(client.chat.completions.create(model=\"" + any_model +
                            "\",\n    messages=[{\"role\": \"user\", \"content\": \"Hello\"}]).choices[0].message.content)\n"},
      {"curl", "curl " + shellQuote(base_url + "/v1/messages") + " -H 'x-api-key: " + kKeyPlaceholder +
                   "' -H 'content-type: application/json' \\\n  -d '{\"model\": \"" + any_model +
                   "\", \"max_tokens\": 64, \"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}'\n"}};
  json all = json::array();
  for (const auto& model : catalog->models) {
    json families = json::array();
    for (const auto family : model.clients) families.push_back(std::string(catalog::toString(family)));
    all.push_back({{"id", model.id}, {"name", model.display_name}, {"clients", families},
                   {"context_window", model.limits.context_window ? json(*model.limits.context_window) : json(nullptr)}});
  }
  out["models"] = all;
  return Reply::json(out);
}

}  // namespace sluice::admin
