#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

bool isTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lowercase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// Headers that already mean something to the gateway or to HTTP: naming one of them as the
// proxy's identity header would let it carry a credential, a session or framing.
bool reservedIdentityHeader(std::string_view lower) {
  return lower == "authorization" || lower == "proxy-authorization" || lower == "x-api-key" ||
         lower == "x-goog-api-key" || lower == "api-key" || lower == "cookie" || lower == "x-csrf-token" ||
         lower.starts_with("x-sluice-") || lower == "host" || lower == "content-length" ||
         lower == "content-type" || lower == "transfer-encoding" || lower == "connection" || lower == "user-agent" ||
         lower == "expect" || lower.starts_with("anthropic-") || lower.starts_with("openai-");
}

void readTrustedProxies(YamlReader& reader, const Entry& entry, IdentitySettings& identity) {
  Fields fields = reader.fields(entry, "trusted_proxies", {"header", "from", "match"});
  if (!fields.ok()) return;
  TrustedProxies proxies;
  proxies.where = entry.key_at;
  bool ok = true;
  if (const Entry* header = fields.find("header")) {
    if (auto name = reader.string(*header, "header of trusted_proxies")) {
      const std::string lower = lowercase(*name);
      if (lower.empty() || lower.size() > 128 || !std::ranges::all_of(lower, isTokenChar)) {
        reader.error(header->value_at, "header of trusted_proxies must be an HTTP header name, got '" + *name + "'");
        ok = false;
      } else if (reservedIdentityHeader(lower)) {
        reader.error(header->value_at, "header of trusted_proxies may not be '" + *name +
                                           "': it carries credentials, the gateway's own state, a client's protocol "
                                           "or framing; use the header your proxy sets, e.g. X-Forwarded-Email or "
                                           "Tailscale-User-Login");
        ok = false;
      } else {
        proxies.header = lower;
      }
    } else {
      ok = false;
    }
  } else {
    reader.error(entry.key_at, "trusted_proxies needs header: the request header your proxy names the member in "
                               "(e.g. X-Forwarded-Email)");
    ok = false;
  }
  if (const Entry* from = fields.find("from")) {
    for (const auto& item : reader.stringList(*from, "from of trusted_proxies", true).value_or(
             std::vector<Located<std::string>>{})) {
      std::string why;
      auto block = parseCidr(item.value, &why);
      if (!block) {
        reader.error(item.where, "from of trusted_proxies: " + why);
        ok = false;
      } else if (block->prefix_bits == 0 || block->prefix_bits == 96) {
        reader.error(item.where, "from of trusted_proxies: '" + item.value +
                                     "' trusts every address, so anyone could name any member; list your proxies' "
                                     "own addresses");
        ok = false;
      } else {
        proxies.from.push_back(std::move(*block));
      }
    }
    if (ok && proxies.from.empty()) {
      reader.error(from->value_at, "from of trusted_proxies must list at least one address block");
      ok = false;
    }
    if (const std::string_view everyone = everyoneTrusted(proxies.from); ok && !everyone.empty()) {
      reader.error(from->value_at, "from of trusted_proxies: together these blocks trust " + std::string(everyone) +
                                       ", so anyone could name any member; list your proxies' own addresses");
      ok = false;
    }
  } else {
    reader.error(entry.key_at, "trusted_proxies needs from: the address blocks your proxies connect from "
                               "(e.g. [10.0.0.0/8, 127.0.0.1/32])");
    ok = false;
  }
  if (const Entry* match = fields.find("match")) {
    proxies.match = reader.choice<ProxyMatch>(*match, "match of trusted_proxies",
                                              {{"name", ProxyMatch::Name}, {"email", ProxyMatch::Email}})
                        .value_or(ProxyMatch::Name);
  }
  if (ok) identity.trusted_proxies = std::move(proxies);
}

// Accepts http(s)://host[:port][/path]; the URL without trailing slashes.
std::optional<std::string> readHubUrl(YamlReader& reader, const Entry& entry) {
  std::optional<std::string> url = reader.string(entry, "url of presence");
  if (!url) return std::nullopt;
  std::string_view rest = *url;
  const bool scheme = rest.starts_with("http://") || rest.starts_with("https://");
  if (scheme) rest.remove_prefix(rest.find("//") + 2);
  const bool clean = std::ranges::none_of(rest, [](unsigned char c) { return c <= ' ' || c == '?' || c == '#'; });
  if (!scheme || rest.empty() || rest.front() == '/' || rest.front() == ':' || !clean) {
    reader.error(entry.value_at, "url of presence must be a base URL such as http://hub.internal:7070 (scheme, host, "
                                 "optional port and path), got '" + *url + "'");
    return std::nullopt;
  }
  while (url->ends_with('/')) url->pop_back();
  return url;
}

void readPresence(YamlReader& reader, const Entry& entry, std::optional<PresenceHub>& hub) {
  Fields fields = reader.fields(entry, "presence", {"url", "poll_ms", "stale_ms"});
  if (!fields.ok()) return;
  PresenceHub presence;
  presence.where = entry.key_at;
  bool ok = true;
  if (const Entry* url = fields.find("url")) {
    auto text = readHubUrl(reader, *url);
    ok = text.has_value();
    presence.url = text.value_or("");
  } else {
    reader.error(entry.key_at, "presence needs url: the hub's base URL (the gateway polls GET <url>/presence)");
    ok = false;
  }
  if (const Entry* poll = fields.find("poll_ms")) {
    presence.poll_ms = static_cast<int>(reader.integer(*poll, "poll_ms of presence", 100, 600'000).value_or(presence.poll_ms));
  }
  if (const Entry* stale = fields.find("stale_ms")) {
    presence.stale_ms =
        static_cast<int>(reader.integer(*stale, "stale_ms of presence", 100, 3'600'000).value_or(presence.stale_ms));
  }
  if (presence.stale_ms <= presence.poll_ms) {
    reader.error(fields.find("stale_ms") ? fields.find("stale_ms")->value_at : entry.key_at,
                 "stale_ms of presence (" + std::to_string(presence.stale_ms) + ") must be more than poll_ms (" +
                     std::to_string(presence.poll_ms) + "), or every node is stale between two polls");
    ok = false;
  }
  if (ok) hub = std::move(presence);
}

std::string maskKindNames() {
  std::string names;
  for (std::string_view kind : kMaskKinds) names += (names.empty() ? "" : ", ") + std::string(kind);
  return names;
}

// A list of kinds for `mask:` or `block:`: each known, none twice; the vault is its own key.
std::vector<Located<std::string>> readKinds(YamlReader& reader, const Entry& entry, const std::string& what) {
  std::vector<Located<std::string>> kinds;
  const auto list = reader.stringList(entry, what);
  if (!list) return kinds;
  for (const auto& kind : *list) {
    if (kind.value == "vault") {
      reader.error(kind.where, what + " may not name 'vault': the vault is its own key (vault: file:PATH), "
                                      "and every entry of it is masked");
    } else if (std::ranges::find(kMaskKinds, std::string_view(kind.value)) == std::end(kMaskKinds)) {
      reader.error(kind.where, what + " names unknown kind '" + kind.value + "'; kinds: " + maskKindNames());
    } else if (std::ranges::any_of(kinds, [&](const auto& seen) { return seen.value == kind.value; })) {
      reader.error(kind.where, what + " names '" + kind.value + "' more than once");
    } else {
      kinds.push_back(kind);
    }
  }
  return kinds;
}

// NOTE: messages name the vault's path, never its content.
void readVault(YamlReader& reader, const ParseContext& context, const Entry& entry, DataProtection& protection) {
  protection.vault_at = entry.value_at;
  const auto ref = reader.string(entry, "vault of data_protection");
  if (!ref) return;
  if (!ref->starts_with("file:") || ref->size() == 5) {
    reader.error(entry.value_at, "vault of data_protection must be file:PATH (a file of exact strings, one a line), "
                                 "got '" + *ref + "'");
    return;
  }
  protection.vault_ref = *ref;
  const std::string path = ref->substr(5);
  const auto found = context.secret_files.find(path);
  if (found == context.secret_files.end()) {
    reader.error(entry.value_at, "vault file " + path + " could not be read; requests to masked tiers "
                                 "are not sent without it");
    return;
  }
  if (found->second.size() > kMaxVaultFileBytes) {
    reader.error(entry.value_at, "vault file " + path + " is larger than " +
                                     std::to_string(kMaxVaultFileBytes >> 20) + " MiB");
    return;
  }
  protection.vault_text = found->second;
}

void readDataProtection(YamlReader& reader, const ParseContext& context, const Entry& entry, Draft& draft) {
  DataProtection& protection = draft.data_protection.emplace();
  protection.where = entry.key_at;
  protection.vault_at = entry.key_at;
  Fields fields = reader.fields(entry, "data_protection", {"mask", "vault", "restore", "block"});
  if (!fields.ok()) return;
  if (const Entry* e = fields.find("mask")) {
    for (auto& kind : readKinds(reader, *e, "mask of data_protection")) protection.mask.push_back(kind.value);
  }
  if (const Entry* e = fields.find("vault")) readVault(reader, context, *e, protection);
  if (const Entry* e = fields.find("restore")) {
    protection.restore = reader.boolean(*e, "restore of data_protection").value_or(true);
  }
  if (const Entry* e = fields.find("block")) {
    for (auto& kind : readKinds(reader, *e, "block of data_protection")) {
      // A kind is looked for only when it is masked; a block of an unmasked kind would never fire.
      if (std::ranges::find(protection.mask, kind.value) == protection.mask.end()) {
        reader.error(kind.where, "block of data_protection names '" + kind.value +
                                     "', which mask does not list; a blocked kind must also be masked");
        continue;
      }
      protection.block.push_back(kind.value);
    }
  }
  // Masking nothing is a mistake to point out; a list whose items were all refused was reported.
  const Entry* mask = fields.find("mask");
  const bool mask_empty =
      mask == nullptr || mask->value.IsNull() || (mask->value.IsSequence() && mask->value.size() == 0);
  if (mask_empty && fields.find("vault") == nullptr) {
    reader.error(entry.key_at, "data_protection needs mask: [kinds] or vault: file:PATH; kinds: " + maskKindNames());
  }
}

}  // namespace

void parseGateway(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "gateway");
  if (!body) return;
  Fields gateway =
      reader.fields(*body, "gateway", {"default_model", "routes", "quotas", "identity", "trusted_proxies",
                                       "ad_hoc_chains", "presence", "data_protection", "limits", "webhooks", "telemetry",
                                       "console"});
  if (!gateway.ok()) return;
  draft.gateway_loaded = true;
  if (const Entry* e = gateway.find("default_model")) {
    if (auto id = reader.string(*e, "default_model")) draft.default_model = Located<std::string>{*id, e->value_at};
  } else {
    reader.error(body->key_at, "gateway needs default_model");
  }
  if (const Entry* routes = gateway.find("routes"); routes != nullptr && !routes->value.IsNull()) {
    if (!routes->value.IsSequence()) {
      reader.error(routes->value_at, "routes must be a list, got " + describeNode(routes->value));
    } else {
      size_t index = 0;
      for (const YAML::Node& item : routes->value) {
        draft.routes.push_back(readRoute(reader, item, reader.at(item, routes->value_at), index++));
      }
    }
  }
  if (const Entry* webhooks = gateway.find("webhooks")) readWebhooks(reader, context, *webhooks, draft.webhooks);
  if (const Entry* quotas = gateway.find("quotas")) readQuotas(reader, *quotas, draft.quotas);
  checkAlertTargets(reader, draft.quotas, draft.webhooks);
  if (const Entry* identity = gateway.find("identity")) {
    draft.identity.mode = reader.choice<IdentityMode>(*identity, "identity",
                                                      {{"key", IdentityMode::Key},
                                                       {"certificate", IdentityMode::Certificate},
                                                       {"either", IdentityMode::Either}})
                              .value_or(IdentityMode::Key);
    draft.identity.where = identity->value_at;
  }
  if (const Entry* proxies = gateway.find("trusted_proxies"); proxies != nullptr && !proxies->value.IsNull()) {
    readTrustedProxies(reader, *proxies, draft.identity);
  }
  if (const Entry* chains = gateway.find("ad_hoc_chains")) {
    draft.ad_hoc_chains = reader.boolean(*chains, "ad_hoc_chains").value_or(true);
  }
  if (const Entry* presence = gateway.find("presence")) {
    draft.presence_at = presence->key_at;
    readPresence(reader, *presence, draft.presence);
  }
  if (const Entry* e = gateway.find("data_protection")) readDataProtection(reader, context, *e, draft);
  if (const Entry* limits = gateway.find("limits")) readGatewayLimits(reader, *limits, draft.limits);
  if (const Entry* telemetry = gateway.find("telemetry")) readTelemetry(reader, *telemetry, draft.telemetry);
  if (const Entry* console = gateway.find("console")) readConsole(reader, context, *console, draft.console);
}

}  // namespace sluice::catalog
