#include "catalog/compiler.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "catalog/content_hash.h"
#include "catalog/linker.h"
#include "catalog/parsers.h"
#include "catalog/yaml_reader.h"

namespace sluice::catalog {

namespace {

using Parser = void (*)(const SourceText&, const ParseContext&, Draft&);

struct FileSpec {
  const std::optional<SourceText> CatalogSources::* source;
  std::string_view default_path;
  Parser parse;
  bool required;
};

// In the order files are parsed and diagnostics are listed.
constexpr std::array<FileSpec, 6> kFiles = {{
    {&CatalogSources::credentials, "services/ai/credentials.yaml", parseCredentials, true},
    {&CatalogSources::providers, "services/ai/providers.yaml", parseProviders, true},
    {&CatalogSources::models, "services/ai/models.yaml", parseModels, true},
    {&CatalogSources::deployments, "services/ai/deployments.yaml", parseDeployments, true},
    {&CatalogSources::gateway, "services/ai/gateway.yaml", parseGateway, true},
    {&CatalogSources::access_rules, "services/access-control/rules.yaml", parseAccessRules, false},
}};

void parseOne(const FileSpec& spec, const CatalogSources& sources, const ParseContext& context,
              Draft& draft) {
  const std::optional<SourceText>& source = sources.*spec.source;
  if (!source) {
    if (spec.required) {
      context.sink.error({std::string(spec.default_path), 0, 0}, "missing file: the catalog needs it");
    }
    return;
  }
  try {
    spec.parse(*source, context, draft);
  } catch (const YAML::Exception& e) {
    // NOTE: reads go through YamlReader, which never throws; this guards against yaml-cpp
    // surprises so that one file's problem is still reported beside the others.
    context.sink.error({source->path, e.mark.line + 1, e.mark.column + 1}, "could not read: " + e.msg);
  }
}

void sortInFileOrder(const CatalogSources& sources, std::vector<Diagnostic>& diagnostics) {
  auto rank = [&](const std::string& file) {
    for (size_t i = 0; i < kFiles.size(); ++i) {
      const std::optional<SourceText>& source = sources.*kFiles[i].source;
      if (file == (source ? std::string_view(source->path) : kFiles[i].default_path)) return i;
    }
    return kFiles.size();
  };
  std::ranges::stable_sort(diagnostics, [&](const Diagnostic& a, const Diagnostic& b) {
    return std::tuple(rank(a.file), a.line, a.column) < std::tuple(rank(b.file), b.line, b.column);
  });
}

std::string versionOf(const CatalogSources& sources) {
  std::vector<std::string_view> parts;
  for (const FileSpec& spec : kFiles) {
    const std::optional<SourceText>& source = sources.*spec.source;
    parts.push_back(source ? std::string_view(source->text) : std::string_view());
    parts.push_back(source ? "present" : "absent");
  }
  return contentHash(parts);
}

VariablePolicy policyFor(const CatalogSources& sources) {
  return {secretVariables(sources), sources.allowed_variables};
}

void collectVariables(const YAML::Node& node, int depth, std::set<std::string>& names) {
  if (depth > kMaxYamlDepth) return;
  if (node.IsScalar()) {
    names.merge(variablesReferenced(node.Scalar()));
  } else if (node.IsSequence()) {
    for (const auto& item : node) collectVariables(item, depth + 1, names);
  } else if (node.IsMap()) {
    for (const auto& pair : node) {
      collectVariables(pair.first, depth + 1, names);
      collectVariables(pair.second, depth + 1, names);
    }
  }
}

}  // namespace

CompileResult compileCatalog(const CatalogSources& sources) {
  DiagnosticSink sink;
  Draft draft;
  const VariablePolicy variables = policyFor(sources);
  ParseContext context{sources.env, sources.secret_files, sink, variables};
  for (const FileSpec& spec : kFiles) parseOne(spec, sources, context, draft);
  Catalog catalog = link(draft, sink);
  catalog.version = versionOf(sources);

  CompileResult result;
  if (!sink.hasErrors()) result.catalog = std::make_shared<const Catalog>(std::move(catalog));
  result.diagnostics = sink.take();
  sortInFileOrder(sources, result.diagnostics);
  return result;
}

std::set<std::string> secretVariables(const CatalogSources& sources) {
  std::set<std::string> names;
  DiagnosticSink ignored;
  Draft draft;
  // NOTE: the secrets are not known yet; a ${NAME} in credentials.yaml (or gateway.yaml) may read
  // any variable but the master key's here, and is checked against the secrets by the compilation
  // proper. Failures are compileCatalog()'s to report.
  const VariablePolicy any;
  ParseContext context{sources.env, sources.secret_files, ignored, any};
  constexpr std::string_view kPrefix = "env:";
  const auto add = [&](const std::string& ref) {
    if (ref.starts_with(kPrefix) && ref.size() > kPrefix.size()) names.insert(ref.substr(kPrefix.size()));
  };
  try {
    if (sources.credentials) parseCredentials(*sources.credentials, context, draft);
  } catch (const YAML::Exception&) {
  }
  // A webhook's signing key (gateway.webhooks.*.secret) is as secret as a credential's.
  try {
    if (sources.gateway) parseGateway(*sources.gateway, context, draft);
  } catch (const YAML::Exception&) {
  }
  for (const Credential& credential : draft.credentials) {
    add(credential.secret_ref);
    if (credential.gcp) add(credential.gcp->service_account_ref);
    if (credential.azure) add(credential.azure->api_key_ref), add(credential.azure->client_secret_ref);
  }
  for (const Webhook& webhook : draft.webhooks) add(webhook.secret_ref);
  // The console's OpenID Connect client secret.
  if (draft.console.oidc) add(draft.console.oidc->client_secret_ref);
  return names;
}

std::set<std::string> variablesReferenced(const CatalogSources& sources) {
  std::set<std::string> names;
  for (const FileSpec& spec : kFiles) {
    const std::optional<SourceText>& source = sources.*spec.source;
    if (!source || yamlNestsDeeperThan(source->text, kMaxYamlDepth)) continue;
    try {
      for (const YAML::Node& document : YAML::LoadAll(source->text)) collectVariables(document, 0, names);
    } catch (const YAML::Exception&) {
      continue;  // compileCatalog() reports it
    }
  }
  return names;
}

std::vector<std::string> secretFilesReferenced(const CatalogSources& sources) {
  std::vector<std::string> paths;
  DiagnosticSink ignored;
  Draft draft;
  const VariablePolicy variables = policyFor(sources);
  ParseContext context{sources.env, sources.secret_files, ignored, variables};
  try {
    if (sources.credentials) parseCredentials(*sources.credentials, context, draft);
  } catch (const YAML::Exception&) {
    return paths;  // compileCatalog() reports it
  }
  constexpr std::string_view kPrefix = "file:";
  const auto add = [&](const std::string& ref) {
    if (!ref.starts_with(kPrefix) || ref.size() <= kPrefix.size()) return;
    std::string path = ref.substr(kPrefix.size());
    if (std::ranges::find(paths, path) == paths.end()) paths.push_back(std::move(path));
  };
  for (const Credential& credential : draft.credentials) {
    add(credential.secret_ref);
    if (credential.gcp) add(credential.gcp->service_account_ref);
    if (credential.azure) add(credential.azure->api_key_ref), add(credential.azure->client_secret_ref);
  }
  // The data protection vault is read the same way (its content is as secret as a key).
  if (sources.gateway) {
    try {
      parseGateway(*sources.gateway, context, draft);
    } catch (const YAML::Exception&) {
      return paths;  // compileCatalog() reports it
    }
    if (draft.data_protection) add(draft.data_protection->vault_ref);
    if (draft.console.oidc) add(draft.console.oidc->client_secret_ref);
  }
  return paths;
}

}  // namespace sluice::catalog
