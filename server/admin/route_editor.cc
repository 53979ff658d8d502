// The route editor: gateway.yaml as text, checked by the same compiler the server loads the
// catalog with (the other four files and rules.yaml read from services_dir), written back only
// when it compiles, the previous text kept in <services_dir>/history/ (the last 40), and the new
// catalog swapped in at once (live reload would pick it up within seconds anyway). The edited text
// may interpolate only the variables the catalog on disk already uses, never a secret's, and no
// diagnostic shows an interpolated value (catalog/compiler.h). Where the directory cannot be
// written (a ConfigMap, a read-only volume) the source says so and the page offers only the
// edited file and a unified diff of it, for a change through git.
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalog/compiler.h"
#include "server/wire/json_parse.h"
#include "server/admin/api.h"
#include "server/admin/json_time.h"
#include "server/admin/line_diff.h"
#include "server/config/catalog_loader.h"
#include "server/log/json_log.h"
#include "server/net/fiber.h"

namespace sluice::admin {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr size_t kHistoryKept = 40;

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string dirOf(const ConsoleContext& context) {
  std::string dir = context.gateway.options().services_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

fs::path gatewayPath(const ConsoleContext& context) { return fs::path(dirOf(context)) / "ai" / "gateway.yaml"; }
fs::path historyDir(const ConsoleContext& context) { return fs::path(dirOf(context)) / "history"; }

// FNV-1a of the text: the editor sends back the tag of the text it started from, so a save over
// someone else's newer change is refused instead of silently undoing it.
std::string tagOf(const std::string& text) {
  uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

catalog::CompileResult compileHere(const ConsoleContext& context, const std::string& gateway_text) {
  const std::string dir = dirOf(context);
  const auto source = [&](const std::string& relative) -> std::optional<catalog::SourceText> {
    auto text = readFile(fs::path(dir) / relative);
    if (!text) return std::nullopt;
    return catalog::SourceText{dir + "/" + relative, std::move(*text)};
  };
  catalog::CatalogSources sources;
  sources.credentials = source("ai/credentials.yaml");
  sources.providers = source("ai/providers.yaml");
  sources.models = source("ai/models.yaml");
  sources.deployments = source("ai/deployments.yaml");
  sources.gateway = source("ai/gateway.yaml");
  sources.access_rules = source("access-control/rules.yaml");
  // The edited text may read only the variables the files on disk already read: an admin must not
  // reach the rest of the process's environment through a label or an error message.
  sources.allowed_variables = catalog::variablesReferenced(sources);
  sources.gateway = catalog::SourceText{dir + "/ai/gateway.yaml", gateway_text};
  sources.env = config::processEnvironment();
  config::readSecretFiles(sources);
  auto result = catalog::compileCatalog(sources);
  config::attachDataProtection(result);
  return result;
}

// On a helper thread: it reads files, and yaml-cpp recurses per level of nesting, which a
// connection's fiber stack is not sized for (the catalog reader refuses past 64 levels, and yaml-cpp
// itself stops at about 500; a helper's stack holds either).
catalog::CompileResult compileWith(const ConsoleContext& context, const std::string& gateway_text) {
  return net::fiber::blocking([&] { return compileHere(context, gateway_text); });
}

json diagnosticsJson(const std::vector<catalog::Diagnostic>& diagnostics) {
  json out = json::array();
  for (const auto& diagnostic : diagnostics) {
    out.push_back({{"severity", diagnostic.severity == catalog::Severity::Error ? "error" : "warning"},
                   {"file", diagnostic.file},
                   {"line", diagnostic.line},
                   {"column", diagnostic.column},
                   {"message", diagnostic.message},
                   {"text", diagnostic.format()},
                   {"in_gateway_yaml", diagnostic.file.ends_with("ai/gateway.yaml")}});
  }
  return out;
}

std::vector<fs::path> historyFiles(const ConsoleContext& context) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(historyDir(context), error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with("gateway-") && name.ends_with(".yaml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // names carry the UTC time: oldest first
  return files;
}

json historyJson(const ConsoleContext& context) {
  json out = json::array();
  const auto files = historyFiles(context);
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    std::error_code error;
    out.push_back({{"name", it->filename().string()}, {"bytes", fs::file_size(*it, error)}});
  }
  return out;
}

// Empty when a save can write here: gateway.yaml's directory, and the history directory (or the
// services directory it is made in). Otherwise the first that cannot be written, and why.
std::string readOnlyReason(const ConsoleContext& context) {
  std::error_code error;
  const fs::path history = historyDir(context);
  for (const fs::path& dir : {gatewayPath(context).parent_path(),
                              fs::is_directory(history, error) ? history : fs::path(dirOf(context))}) {
    if (::access(dir.c_str(), W_OK) != 0) {
      return dir.string() + " cannot be written (" + std::generic_category().message(errno) + ")";
    }
  }
  return "";
}

// The path gateway.yaml has in a repository holding the services directory at its root, as the
// shipped layout does: "services/ai/gateway.yaml".
std::string repositoryPath(const ConsoleContext& context) {
  const std::string name = fs::path(dirOf(context)).filename().string();
  return (name.empty() || name == "." || name == "/" ? std::string() : name + "/") + "ai/gateway.yaml";
}

json parseBody(const Exchange& exchange) {
  return wire::nestsDeeperThan(exchange.body) ? json(json::value_t::discarded) : json::parse(exchange.body, nullptr, false);
}

std::string requestText(const Exchange& exchange, std::string* base_tag) {
  const auto body = parseBody(exchange);
  if (!body.is_object() || !body.contains("text") || !body["text"].is_string()) return {};
  if (base_tag && body.contains("base_tag") && body["base_tag"].is_string()) *base_tag = body["base_tag"].get<std::string>();
  return body["text"].get<std::string>();
}

std::string historyStamp() {
  std::string stamp = isoTime(std::chrono::system_clock::now());  // 2026-11-29T22:35:48.123Z
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  std::erase(stamp, '.');
  return stamp;  // 20261129T223548123Z
}

}  // namespace

Reply routeSource(ConsoleContext& context, const Exchange&) {
  const auto text = readFile(gatewayPath(context));
  if (!text) return Reply::error(404, "no_gateway_yaml", gatewayPath(context).string() + " cannot be read");
  const std::string read_only = readOnlyReason(context);
  return Reply::json({{"path", gatewayPath(context).string()},
                      {"text", *text},
                      {"tag", tagOf(*text)},
                      {"version", context.gateway.catalog()->version},
                      {"history_dir", historyDir(context).string()},
                      {"history", historyJson(context)},
                      {"writable", read_only.empty()},
                      {"read_only_reason", read_only.empty() ? json(nullptr) : json(read_only)},
                      {"repository_path", repositoryPath(context)}});
}

Reply routeDiff(ConsoleContext& context, const Exchange& exchange) {
  const auto body = parseBody(exchange);
  if (!body.is_object() || !body.contains("text") || !body["text"].is_string() || !body.contains("base") ||
      !body["base"].is_string()) {
    return Reply::error(400, "no_text", "send {\"base\": \"<gateway.yaml as loaded>\", \"text\": \"<as edited>\"}");
  }
  const std::string path = repositoryPath(context);
  const std::string diff = unifiedDiff(body["base"].get<std::string>(), body["text"].get<std::string>(), path);
  return Reply::json({{"path", path}, {"changed", !diff.empty()}, {"diff", diff}});
}

Reply routeValidate(ConsoleContext& context, const Exchange& exchange) {
  const std::string text = requestText(exchange, nullptr);
  if (text.empty()) return Reply::error(400, "no_text", "send {\"text\": \"<gateway.yaml>\"}");
  const auto result = compileWith(context, text);
  json out = {{"ok", result.ok()}, {"diagnostics", diagnosticsJson(result.diagnostics)}};
  if (result.ok()) {
    out["version"] = result.catalog->version;
    json routes = json::array();
    for (const auto& route : result.catalog->routes) {
      if (route.kind != catalog::RouteKind::Implicit) routes.push_back(route.id);
    }
    out["routes"] = routes;
  }
  return Reply::json(out);
}

Reply routeSave(ConsoleContext& context, const Exchange& exchange) {
  std::string base_tag;
  const std::string text = requestText(exchange, &base_tag);
  if (text.empty()) return Reply::error(400, "no_text", "send {\"text\": \"<gateway.yaml>\", \"base_tag\": \"...\"}");
  std::lock_guard lock(context.editor_mutex);
  const fs::path path = gatewayPath(context);
  const auto current = readFile(path);
  if (!current) return Reply::error(404, "no_gateway_yaml", path.string() + " cannot be read");
  // A catalog mounted read-only (a Kubernetes ConfigMap, a read-only volume) is changed in git and
  // rolled out, not edited here: say so before anything is compiled or written.
  if (const std::string read_only = readOnlyReason(context); !read_only.empty()) {
    return Reply::error(409, "catalog_read_only",
                        "the catalog directory is read-only on this replica (" + read_only +
                            "; mounted from a ConfigMap or a read-only volume): change gateway.yaml in git and "
                            "roll it out; every replica reloads it");
  }
  if (!base_tag.empty() && base_tag != tagOf(*current)) {
    return Reply::json({{"ok", false},
                        {"error", {{"key", "changed_meanwhile"},
                                   {"message", "gateway.yaml changed since you opened it; reload it and redo the edit"}}},
                        {"diagnostics", json::array()}},
                       409);
  }
  const auto result = compileWith(context, text);
  if (!result.ok()) {
    return Reply::json({{"ok", false}, {"diagnostics", diagnosticsJson(result.diagnostics)}}, 422);
  }
  if (text == *current) {
    return Reply::json({{"ok", true}, {"unchanged", true}, {"version", context.gateway.catalog()->version},
                        {"diagnostics", diagnosticsJson(result.diagnostics)}, {"history", historyJson(context)}});
  }
  // Keep the previous text, then replace the file by rename so the watcher never sees half of it.
  std::error_code error;
  fs::create_directories(historyDir(context), error);
  const std::string kept = "gateway-" + historyStamp() + ".yaml";
  {
    std::ofstream out(historyDir(context) / kept, std::ios::binary | std::ios::trunc);
    out << *current;
    if (!out) return Reply::error(500, "history_write_failed", "cannot write " + (historyDir(context) / kept).string());
  }
  auto files = historyFiles(context);
  while (files.size() > kHistoryKept) {
    fs::remove(files.front(), error);
    files.erase(files.begin());
  }
  const fs::path temporary = path.parent_path() / ".gateway.yaml.console-tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return Reply::error(500, "write_failed", "cannot write " + temporary.string());
  }
  fs::rename(temporary, path, error);
  if (error) return Reply::error(500, "write_failed", "cannot replace " + path.string() + ": " + error.message());
  log::info("gateway.yaml saved from the console", {{"user", exchange.user}, {"history", kept}});

  auto loaded = config::loadCatalog(dirOf(context), config::processEnvironment());
  json reload = {{"applied", false}};
  if (loaded.ok()) {
    if (context.gateway.catalog()->version != loaded.catalog->version) {
      context.gateway.catalogReloaded(loaded.catalog, "console");
    } else {
      context.gateway.catalogUnchanged();
    }
    reload = {{"applied", true}, {"version", loaded.catalog->version}};
  } else {
    // Another file changed between the check and the load: the watcher reports it as refused.
    reload["diagnostics"] = diagnosticsJson(loaded.diagnostics);
  }
  return Reply::json({{"ok", true},
                      {"saved", true},
                      {"kept", kept},
                      {"tag", tagOf(text)},
                      {"version", result.catalog->version},
                      {"reload", reload},
                      {"diagnostics", diagnosticsJson(result.diagnostics)},
                      {"history", historyJson(context)}});
}

Reply routeHistory(ConsoleContext& context, const std::string& name) {
  if (name.empty()) return Reply::json({{"history", historyJson(context)}, {"history_dir", historyDir(context).string()}});
  const bool safe = name.starts_with("gateway-") && name.ends_with(".yaml") &&
                    name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") ==
                        std::string::npos &&
                    name.find("..") == std::string::npos;
  if (!safe) return Reply::error(400, "bad_name", "not a history entry name");
  const auto kept = readFile(historyDir(context) / name);
  if (!kept) return Reply::error(404, "no_such_version", "no history entry " + name);
  const auto current = readFile(gatewayPath(context)).value_or("");
  json diff = json::array();
  for (const auto& line : lineDiff(*kept, current)) diff.push_back({{"op", std::string(1, line.op)}, {"text", line.text}});
  return Reply::json({{"name", name}, {"text", *kept}, {"diff", diff}});
}

}  // namespace sluice::admin
