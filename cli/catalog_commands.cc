#include "cli/catalog_commands.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "catalog/suggest.h"
#include "server/config/catalog_loader.h"
#include "server/dispatch/planner.h"
#include "server/identity/access.h"
#include "server/dispatch/pricing.h"
#include "server/wire/error_keys.h"
#include "server/wire/operation.h"

namespace sluice::cli {

namespace {

// How callers are identified, when the catalog says anything but the default ("" then):
// "either; trusted proxies: x-forwarded-email from 10.0.0.0/8, 127.0.0.1/32 (match email)".
std::string identityLine(const catalog::Catalog& catalog) {
  const auto& identity = catalog.identity;
  if (identity.mode == catalog::IdentityMode::Key && !identity.trusted_proxies) return "";
  std::string line(catalog::toString(identity.mode));
  if (const auto& proxies = identity.trusted_proxies) {
    line += "; trusted proxies: " + proxies->header + " from ";
    for (size_t i = 0; i < proxies->from.size(); ++i) line += (i ? ", " : "") + proxies->from[i].text;
    line += " (match " + std::string(catalog::toString(proxies->match)) + ")";
  }
  return line;
}

nlohmann::json diagnosticJson(const catalog::Diagnostic& diagnostic) {
  return {{"severity", diagnostic.severity == catalog::Severity::Error ? "error" : "warning"},
          {"file", diagnostic.file},
          {"line", diagnostic.line},
          {"column", diagnostic.column},
          {"message", diagnostic.message}};
}

std::string priceLine(const catalog::Pricing& pricing) {
  using dispatch::formatPerMillion;
  std::string line = "in " + formatPerMillion(pricing.input_per_million) + " out " +
                     formatPerMillion(pricing.output_per_million) + " cache-read " +
                     formatPerMillion(pricing.cache_read_per_million) + " cache-write " +
                     formatPerMillion(pricing.cache_write_per_million) + " per 1M";
  if (pricing.long_context) {
    line += "; above " + std::to_string(pricing.long_context->above_input_tokens) + " input tokens: in " +
            formatPerMillion(pricing.long_context->input_per_million) + " out " +
            formatPerMillion(pricing.long_context->output_per_million);
  }
  // Per-unit prices print as per-million ones do (a dollar figure), each only when set.
  const std::pair<const char*, int64_t> units[] = {{"per image", pricing.per_image},
                                                   {"per 1k characters", pricing.per_1k_characters},
                                                   {"per minute", pricing.per_minute},
                                                   {"per request", pricing.per_request}};
  for (const auto& [name, price] : units) {
    if (price > 0) line += "; " + formatPerMillion(price) + " " + name;
  }
  return line;
}

nlohmann::json priceJson(const catalog::Pricing& pricing) {
  nlohmann::json out = {{"input_per_million_microdollars", pricing.input_per_million},
                        {"output_per_million_microdollars", pricing.output_per_million},
                        {"cache_read_per_million_microdollars", pricing.cache_read_per_million},
                        {"cache_write_per_million_microdollars", pricing.cache_write_per_million},
                        {"per_image_microdollars", pricing.per_image},
                        {"per_1k_characters_microdollars", pricing.per_1k_characters},
                        {"per_minute_microdollars", pricing.per_minute},
                        {"per_request_microdollars", pricing.per_request}};
  if (pricing.long_context) {
    out["long_context"] = {{"above_input_tokens", pricing.long_context->above_input_tokens},
                           {"input_per_million_microdollars", pricing.long_context->input_per_million},
                           {"output_per_million_microdollars", pricing.long_context->output_per_million}};
  }
  return out;
}

size_t explicitRoutes(const catalog::Catalog& catalog) {
  return static_cast<size_t>(std::ranges::count_if(
      catalog.routes, [](const catalog::Route& route) { return route.kind != catalog::RouteKind::Implicit; }));
}

// The ids a client may ask for that `requested` was probably meant as: the catalog's own
// did-you-mean, asked without Claude Code's "[1m]" marker and the "sluice/" prefix.
std::vector<std::string> nearModels(const catalog::Catalog& catalog, const std::string& requested) {
  std::string_view id = catalog::stripContextMarker(requested);
  if (id.starts_with(catalog::kSluicePrefix)) id.remove_prefix(catalog::kSluicePrefix.size());
  return catalog::nearestNames(id, catalog::servedIds(catalog));
}

// "7 models", "1 route".
std::string counted(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The directory as the operator would type it again: "./services" for a bare relative name.
std::string shownDir(const std::string& dir) {
  if (dir.empty() || dir.front() == '/' || dir.starts_with("./") || dir.starts_with("../") || dir == "." ||
      dir == "..") {
    return dir;
  }
  return "./" + dir;
}

// A directory without an ai/ folder holds no catalog at all: one message instead of a "missing
// file" per catalog file.
std::optional<std::string> noCatalogAt(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::is_directory(std::filesystem::path(dir) / "ai", error)) return std::nullopt;
  return "no catalog at " + shownDir(dir) + "; pass --services <dir> (the folder that holds ai/ and "
         "access-control/) or set SLUICE_SERVICES";
}

}  // namespace

int catalogCheck(const std::string& services_dir, bool json, std::ostream& out, std::ostream& err) {
  if (const auto missing = noCatalogAt(services_dir)) {
    if (json) {
      out << nlohmann::json{{"valid", false},
                            {"diagnostics", {{{"severity", "error"}, {"file", shownDir(services_dir)}, {"line", 0},
                                              {"column", 0}, {"message", *missing}}}}}
                 .dump(2)
          << "\n";
    } else {
      err << "sluicectl: " << *missing << "\n";
    }
    return 2;
  }
  const auto result = config::loadCatalog(services_dir, config::processEnvironment());
  if (json) {
    nlohmann::json report = {{"valid", result.ok()}, {"diagnostics", nlohmann::json::array()}};
    if (result.ok()) {
      const auto& catalog = *result.catalog;
      report["version"] = catalog.version;
      report["counts"] = {{"credentials", catalog.credentials.size()},
                          {"providers", catalog.providers.size()},
                          {"models", catalog.models.size()},
                          {"routes", catalog.routes.size()},
                          {"explicit_routes", explicitRoutes(catalog)},
                          {"access_rules", catalog.access_rules.size()}};
    }
    for (const auto& diagnostic : result.diagnostics) report["diagnostics"].push_back(diagnosticJson(diagnostic));
    out << report.dump(2) << "\n";
    return result.ok() ? 0 : 2;
  }
  for (const auto& diagnostic : result.diagnostics) err << diagnostic.format() << "\n";
  if (!result.ok()) {
    size_t errors = 0;
    for (const auto& diagnostic : result.diagnostics) errors += diagnostic.severity == catalog::Severity::Error;
    err << services_dir << ": " << errors << (errors == 1 ? " error" : " errors") << "\n";
    return 2;
  }
  // The console's counts (Settings, "Declared"): every route, the implicit one of each model included.
  const auto& catalog = *result.catalog;
  const size_t explicit_routes = explicitRoutes(catalog);
  out << services_dir << ": ok (version " << catalog.version << "): "
      << counted(catalog.credentials.size(), "credential", "credentials") << ", "
      << counted(catalog.providers.size(), "provider", "providers") << ", "
      << counted(catalog.models.size(), "model", "models") << ", "
      << counted(catalog.routes.size(), "route", "routes") << " (" << explicit_routes << " declared in gateway.yaml, "
      << catalog.routes.size() - explicit_routes << " implicit: one per model), "
      << counted(catalog.access_rules.size(), "access rule", "access rules") << "\n";
  return 0;
}

namespace {

// `catalog explain mcp:<server>` (or /mcp/<server>): the MCP server, its credential, tier and the
// rules that govern it and its tools; with --member (and --group, --project), that caller's
// standing on the server and under each tool rule. 2 when the catalog has no such server.
int explainMcp(const catalog::Catalog& catalog, const std::string& server_id, const QuotaWho& who, bool json,
               std::ostream& out, std::ostream& err) {
  const catalog::Provider* provider = catalog.provider(server_id);
  const catalog::Endpoint* endpoint = nullptr;
  if (provider != nullptr) {
    for (const catalog::Endpoint& candidate : provider->endpoints) {
      if (candidate.wire == catalog::Wire::Mcp) {
        endpoint = &candidate;
        break;
      }
    }
  }
  if (endpoint == nullptr) {
    std::vector<std::string> servers;
    for (const catalog::Provider& p : catalog.providers) {
      for (const catalog::Endpoint& e : p.endpoints) {
        if (e.wire == catalog::Wire::Mcp) servers.push_back(p.id);
      }
    }
    err << "refused: no MCP server '" << server_id << "' is declared"
        << (servers.empty() ? std::string(" (no provider has an endpoint with wire: mcp)")
                            : "; the MCP servers: " + catalog::quotedChoice(servers))
        << "\n";
    return 2;
  }
  identity::Caller caller;
  caller.user = who.member.value_or("");
  caller.groups = who.groups;
  if (who.project) caller.projects = {*who.project};
  identity::Scope scope;
  scope.project = who.project;
  const identity::AccessSubject subject = identity::accessSubject(caller, scope);
  const catalog::Credential* credential = catalog.credentialOf(*endpoint);
  std::vector<const catalog::AccessRule*> rules;
  for (const catalog::AccessRule& rule : catalog.access_rules) {
    if (rule.entity == "mcp_server/" + server_id || rule.entity == "mcp_server/*" ||
        rule.entity.starts_with("mcp_tool/" + server_id + "/")) {
      rules.push_back(&rule);
    }
  }
  const identity::Decision server_decision = identity::decideMcpServer(catalog.access_rules, server_id, subject);
  const std::string url = endpoint->url.substr(0, endpoint->url.find_first_of("?#"));
  if (json) {
    nlohmann::json report = {{"server", server_id},
                             {"path", "/mcp/" + server_id},
                             {"url", url},
                             {"trust", std::string(catalog::toString(endpoint->trust))},
                             {"masked", catalog.masks(*endpoint)},
                             {"credential", credential ? nlohmann::json(credential->id) : nlohmann::json(nullptr)},
                             {"auth_header", endpoint->auth_header.empty() ? "Authorization: Bearer" : endpoint->auth_header}};
    nlohmann::json list = nlohmann::json::array();
    for (const catalog::AccessRule* rule : rules) {
      nlohmann::json entry = {{"entity", rule->entity},
                              {"default", rule->default_access == catalog::AccessDefault::Open ? "open" : "closed"},
                              {"why", rule->why}};
      if (who.member) {
        const identity::Decision decision = identity::decideRule(*rule, subject);
        entry["member"] = {{"allowed", decision.allowed}, {"basis", decision.basis}};
      }
      list.push_back(std::move(entry));
    }
    report["rules"] = std::move(list);
    if (who.member) report["member"] = {{"allowed", server_decision.allowed}, {"entity", server_decision.entity},
                                        {"basis", server_decision.basis}};
    out << report.dump(2) << "\n";
    return 0;
  }
  out << "MCP server " << server_id << " at /mcp/" << server_id << " (and /mcp as " << server_id << "__<tool>)\n"
      << "  upstream " << url << ", trust " << catalog::toString(endpoint->trust)
      << (catalog.masks(*endpoint) ? " (arguments masked)" : "") << "\n"
      << "  credential " << (credential ? credential->id + " (" + std::string(catalog::toString(credential->kind)) + ")" : std::string("none"))
      << ", sent as " << (endpoint->auth_header.empty() ? std::string("Authorization: Bearer") : endpoint->auth_header) << "\n";
  if (rules.empty()) {
    out << "  rules: none (every member may call every tool)\n";
  } else {
    out << "  rules (a tool: its own name, then the first pattern in file order, then *):\n";
    for (const catalog::AccessRule* rule : rules) {
      out << "    " << rule->entity << "  default " << (rule->default_access == catalog::AccessDefault::Open ? "open" : "closed")
          << (rule->why.empty() ? "" : "  — " + rule->why);
      if (who.member) {
        const identity::Decision decision = identity::decideRule(*rule, subject);
        out << "  [" << *who.member << ": " << (decision.allowed ? "allowed" : "denied") << ", " << decision.basis << "]";
      }
      out << "\n";
    }
  }
  if (who.member) {
    out << "  " << *who.member << (who.project ? " in project " + *who.project : std::string()) << ": the server is "
        << (server_decision.allowed ? "open" : "closed") << " (" << server_decision.basis << ")\n";
  }
  return 0;
}

}  // namespace

int catalogExplain(const std::string& services_dir, const std::string& model, const QuotaWho& who, bool json,
                   std::ostream& out, std::ostream& err) {
  const std::optional<std::string>& project = who.project;
  if (const auto missing = noCatalogAt(services_dir)) {
    err << "sluicectl: " << *missing << "\n";
    return 2;
  }
  const auto result = config::loadCatalog(services_dir, config::processEnvironment());
  if (!result.ok()) {
    for (const auto& diagnostic : result.diagnostics) err << diagnostic.format() << "\n";
    err << services_dir << ": the catalog is invalid\n";
    return 2;
  }
  const auto& catalog = *result.catalog;
  if (model.starts_with("mcp:") || model.starts_with("/mcp/")) {
    return explainMcp(catalog, model.substr(model.starts_with("mcp:") ? 4 : 5), who, json, out, err);
  }
  dispatch::PlanRequest plan_request;
  plan_request.requested_model = model;
  plan_request.project = project;
  const auto plan = dispatch::planDispatch(catalog, plan_request);
  if (!plan) {
    const auto near = plan.error().key == wire::error_keys::kModelNotFound ? nearModels(catalog, model)
                                                                           : std::vector<std::string>{};
    if (json) {
      nlohmann::json report = {{"requested_model", model},
                               {"refused", {{"status", plan.error().status},
                                            {"error_key", plan.error().key},
                                            {"message", plan.error().message}}}};
      if (!near.empty()) report["did_you_mean"] = near;
      out << report.dump(2) << "\n";
    } else {
      err << "refused (" << plan.error().status << " " << plan.error().key << "): " << plan.error().message
          << (near.empty() ? "" : "; did you mean " + catalog::quotedChoice(near) + "?") << "\n";
    }
    return 2;
  }
  const auto& route = *plan->route;
  if (json) {
    nlohmann::json report = {{"requested_model", plan->requested_model},
                             {"model", plan->model_id},
                             {"kind", std::string(catalog::toString(plan->model->kind))},
                             {"served_at", std::string(wire::servedAt(plan->model->kind))},
                             {"route", {{"id", route.id},
                                        {"kind", std::string(catalog::toString(route.kind))},
                                        {"strategy", std::string(catalog::toString(route.strategy))},
                                        {"affinity", route.affinity ? "conversation" : "none"},
                                        {"affinity_ttl_s", route.affinity_ttl_seconds}}},
                             {"route_match", dispatch::joinRouteMatch(plan->route_match)},
                             {"deployments", nlohmann::json::array()}};
    if (project) report["project"] = *project;
    if (const auto identity = identityLine(catalog); !identity.empty()) {
      report["identity"] = {{"mode", std::string(catalog::toString(catalog.identity.mode))}};
      if (const auto& proxies = catalog.identity.trusted_proxies) {
        nlohmann::json from = nlohmann::json::array();
        for (const auto& block : proxies->from) from.push_back(block.text);
        report["identity"]["trusted_proxies"] = {
            {"header", proxies->header}, {"from", from}, {"match", std::string(catalog::toString(proxies->match))}};
      }
    }
    if (plan->chain) {
      report["chain"] = nlohmann::json::array();
      for (const auto& piece : plan->pieces) {
        nlohmann::json entry = {{"piece", piece.text}, {"kind", std::string(dispatch::toString(piece.kind))},
                                {"route_match", dispatch::joinRouteMatch(piece.route_match)}};
        if (piece.skipped) entry["skipped"] = {{"error_key", *piece.skipped}, {"message", piece.skipped_message}};
        report["chain"].push_back(std::move(entry));
      }
    }
    if (!route.context_fallbacks.empty()) report["route"]["context_fallbacks"] = route.context_fallbacks;
    for (const auto& attempt : plan->attempts) {
      report["deployments"].push_back({{"endpoint", attempt.endpoint->key},
                                       {"provider", attempt.provider->id},
                                       {"wire", std::string(catalog::toString(attempt.endpoint->wire))},
                                       {"url", attempt.endpoint->url},
                                       {"credential", attempt.credential->id},
                                       {"credential_kind", std::string(catalog::toString(attempt.credential->kind))},
                                       {"configured", attempt.credential->configured()},
                                       {"upstream_model", attempt.deployment->upstream_model},
                                       {"weight", attempt.weight},
                                       {"pricing", priceJson(attempt.deployment->pricing)}});
      auto& row = report["deployments"].back();
      if (plan->chain) {
        row["piece"] = plan->pieces[attempt.piece].text;
        row["model"] = attempt.deployment->model_id;
        row["route"] = attempt.route ? attempt.route->id : "";
      }
      if (attempt.endpoint->presence_node) {
        row["presence"] = {{"node", *attempt.endpoint->presence_node}, {"skip_busy", attempt.endpoint->skip_busy}};
      }
      if (attempt.endpoint->max_input_bytes) row["max_input_bytes"] = *attempt.endpoint->max_input_bytes;
      if (catalog.data_protection) {
        report["deployments"].back()["trust"] = std::string(catalog::toString(attempt.endpoint->trust));
        report["deployments"].back()["masked"] = catalog.masks(*attempt.endpoint);
      }
    }
    if (catalog.data_protection) {
      const auto& protection = *catalog.data_protection;
      report["data_protection"] = {{"mask", protection.mask},
                                   {"block", protection.block},
                                   {"restore", protection.restore},
                                   {"vault", !protection.vault_ref.empty()}};
    }
    if (auto quotas = explainQuotasJson(catalog, who); !quotas.is_null()) report["quotas"] = std::move(quotas);
    out << report.dump(2) << "\n";
    return 0;
  }
  out << "requested    " << plan->requested_model << "\n";
  out << "model        " << plan->model_id << " (" << plan->model->display_name << ")\n";
  if (plan->model->kind != catalog::ModelKind::Chat) {
    out << "kind         " << catalog::toString(plan->model->kind) << ", served on " << wire::servedAt(plan->model->kind)
        << "\n";
  }
  out << "route        " << route.id << " (" << catalog::toString(route.kind) << ", strategy "
      << catalog::toString(route.strategy) << (route.affinity ? ", conversation affinity" : "")
      << (route.affinity && route.affinity_ttl_seconds > 0 ? " for " + std::to_string(route.affinity_ttl_seconds) + " s" : "")
      << ")\n";
  if (project) out << "project      " << *project << "\n";
  if (const auto identity = identityLine(catalog); !identity.empty()) out << "identity     " << identity << "\n";
  out << "route_match  " << dispatch::joinRouteMatch(plan->route_match) << "\n";
  if (plan->chain) {
    out << "chain        " << plan->pieces.size() << (plan->pieces.size() == 1 ? " piece" : " pieces")
        << ", tried in order (the route and model above are the first target's):\n";
    for (size_t i = 0; i < plan->pieces.size(); ++i) {
      const auto& piece = plan->pieces[i];
      out << "  " << i + 1 << ". " << piece.text << " (" << dispatch::toString(piece.kind) << ")";
      if (piece.skipped) out << ": passed over, " << *piece.skipped << ": " << piece.skipped_message;
      else if (!piece.route_match.empty()) out << ": " << dispatch::joinRouteMatch(piece.route_match);
      out << "\n";
    }
  }
  if (!route.context_fallbacks.empty()) {
    out << "fallbacks    ";
    for (size_t i = 0; i < route.context_fallbacks.size(); ++i) out << (i ? ", " : "") << route.context_fallbacks[i];
    out << "\n";
  }
  if (catalog.data_protection) {
    const auto& protection = *catalog.data_protection;
    const auto join = [](const std::vector<std::string>& kinds) {
      std::string text;
      for (const auto& kind : kinds) text += (text.empty() ? "" : ", ") + kind;
      return text.empty() ? std::string("none") : text;
    };
    out << "protection   masks " << join(protection.mask) << (protection.vault_ref.empty() ? "" : " and the vault")
        << " for trusted_masked and public; blocks " << join(protection.block) << " from public; "
        << (protection.restore ? "restores answers" : "answers not restored") << "\n";
  }
  out << "deployments, in failover order:\n";
  int position = 1;
  for (const auto& attempt : plan->attempts) {
    out << "  " << position++ << ". " << attempt.endpoint->key
        << (plan->chain ? "  (piece " + plan->pieces[attempt.piece].text + ", model " + attempt.deployment->model_id + ")"
                        : std::string())
        << "\n"
        << "       wire " << catalog::toString(attempt.endpoint->wire) << ", url "
        << (attempt.endpoint->url.empty() ? "(the presence hub's address for the node)" : attempt.endpoint->url) << "\n";
    if (attempt.endpoint->presence_node) {
      out << "       own machine: used while presence node " << *attempt.endpoint->presence_node << " is available"
          << (attempt.endpoint->skip_busy ? " and not busy" : "") << "\n";
    }
    if (attempt.endpoint->max_input_bytes) {
      out << "       skipped for request bodies over " << *attempt.endpoint->max_input_bytes << " bytes\n";
    }
    out
        << "       credential " << attempt.credential->id << " (" << catalog::toString(attempt.credential->kind)
        << (attempt.credential->configured() ? "" : ", NOT CONFIGURED: skipped") << ")\n"
        << "       upstream model " << attempt.deployment->upstream_model
        << (route.strategy == catalog::Strategy::Weighted ? ", weight " + std::to_string(attempt.weight) : "") << "\n"
        << "       price " << priceLine(attempt.deployment->pricing) << "\n";
    if (catalog.data_protection) {
      out << "       trust " << catalog::toString(attempt.endpoint->trust)
          << (catalog.masks(*attempt.endpoint) ? ": sent masked" : ": sent as the client wrote it") << "\n";
    }
  }
  explainQuotas(catalog, who, out);
  return 0;
}

std::string catalogTraceUrl(const std::string& services_dir) {
  try {
    const auto result = config::loadCatalog(services_dir, config::processEnvironment());
    return result.catalog ? result.catalog->telemetry.trace_url : std::string();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace sluice::cli
