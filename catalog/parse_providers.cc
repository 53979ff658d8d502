#include <algorithm>
#include <cctype>
#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

constexpr int64_t kMaxTimeoutMs = 3'600'000;
constexpr int64_t kMaxInputBytes = int64_t{1} << 40;

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The gateway sends the credential itself, the way the endpoint's wire expects; a header here
// would leak a secret into git or fight the gateway's own.
bool isAuthHeader(std::string_view lower) {
  return lower == "authorization" || lower == "proxy-authorization" || lower == "x-api-key" ||
         lower == "x-goog-api-key" || lower == "api-key";
}

// The caller's session with the gateway: its cookie, its console CSRF token and the gateway's own
// x-sluice-* headers (scope, request id) are the gateway's business, never a provider's.
bool isGatewayHeader(std::string_view lower) {
  return lower == "cookie" || lower == "x-csrf-token" || lower.starts_with("x-sluice-");
}

// Framing headers belong to the HTTP client.
bool isFramingHeader(std::string_view lower) {
  return lower == "host" || lower == "content-length" || lower == "transfer-encoding" ||
         lower == "connection";
}

bool isHeaderNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void readHeaders(YamlReader& reader, const Entry& entry, const std::string& owner,
                 Provider& provider) {
  Fields headers = reader.fields(entry, "headers of " + owner);
  for (const Entry& header : headers.entries()) {
    std::string lower = lowercase(header.key);
    if (header.key.empty() || !std::ranges::all_of(header.key, isHeaderNameChar)) {
      reader.error(header.key_at, "header name '" + header.key + "' of " + owner + " is not valid");
      continue;
    }
    if (isAuthHeader(lower)) {
      reader.error(header.key_at, "header '" + header.key + "' of " + owner +
                                      " is not allowed: the gateway sends the credential itself");
      continue;
    }
    if (isFramingHeader(lower)) {
      reader.error(header.key_at, "header '" + header.key + "' of " + owner +
                                      " is not allowed: the HTTP client sets it");
      continue;
    }
    std::optional<std::string> value =
        reader.string(header, "header '" + header.key + "' of " + owner);
    if (value) provider.headers.emplace_back(header.key, std::move(*value));
  }
}

// Accepts http(s)://host[:port][/path]; returns the URL without trailing slashes.
std::optional<std::string> readUrl(YamlReader& reader, const Entry& entry, const std::string& what) {
  std::optional<std::string> url = reader.string(entry, what);
  if (!url) return std::nullopt;
  std::string_view rest = *url;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    reader.error(entry.value_at, what + " must start with http:// or https://, got '" + *url + "'");
    return std::nullopt;
  }
  bool has_host = !rest.empty() && rest.front() != '/' && rest.front() != ':';
  bool clean = std::ranges::none_of(rest, [](unsigned char c) {
    return std::isspace(c) || c == '?' || c == '#';
  });
  if (!has_host || !clean) {
    reader.error(entry.value_at, what + " must be a base URL (scheme, host, optional port and "
                                        "path; no spaces, query or fragment), got '" + *url + "'");
    return std::nullopt;
  }
  while (url->ends_with('/')) url->pop_back();
  return url;
}

std::optional<Trust> readTrust(YamlReader& reader, const Entry& entry, const std::string& owner) {
  return reader.choice<Trust>(entry, "trust of " + owner,
                              {{"local", Trust::Local},
                               {"trusted_raw", Trust::TrustedRaw},
                               {"trusted_masked", Trust::TrustedMasked},
                               {"public", Trust::Public}});
}

// presence_hosts: address blocks (catalog/cidr.h) the hub's reported host must fall in. Only
// with presence: and without url: (a url always wins over what the hub reports).
void readPresenceHosts(YamlReader& reader, const Entry& entry, const std::string& what, const Fields& fields,
                       Endpoint& endpoint) {
  if (!fields.find("presence") || fields.find("url")) {
    reader.error(entry.key_at, "presence_hosts of " + what + " needs presence: and no url: (it bounds the address "
                               "the presence hub reports, which is used only when the endpoint has no url)");
    return;
  }
  const auto items = reader.stringList(entry, "presence_hosts of " + what, true);
  if (!items) return;
  for (const auto& item : *items) {
    std::string why;
    if (auto block = parseCidr(item.value, &why)) {
      endpoint.presence_hosts.push_back(std::move(*block));
    } else {
      reader.error(item.where, "presence_hosts of " + what + ": " + why);
    }
  }
  if (items->empty()) reader.error(entry.value_at, "presence_hosts of " + what + " must list at least one address block");
}

void readEndpoints(YamlReader& reader, const Entry& entry, const std::string& owner,
                   Provider& provider) {
  Fields endpoints = reader.fields(entry, "endpoints of " + owner);
  if (endpoints.ok() && endpoints.entries().empty()) {
    reader.error(entry.key_at, owner + " needs at least one endpoint");
  }
  for (const Entry& e : endpoints.entries()) {
    Endpoint endpoint;
    endpoint.provider_id = provider.id;
    endpoint.id = e.key;
    endpoint.key = provider.id + "/" + e.key;
    endpoint.where = e.key_at;
    checkName(reader, {e.key, e.key_at}, "endpoint");
    std::string what = "endpoint '" + endpoint.key + "'";
    Fields fields = reader.fields(e, what, {"wire", "url", "presence", "skip_busy", "max_input_bytes", "trust",
                                            "presence_hosts", "credential", "api_version", "auth_header"});
    if (fields.ok()) {
      const Entry* wire = fields.find("wire");
      if (wire != nullptr) {
        auto parsed = reader.choice<Wire>(*wire, "wire of " + what,
                                          {{"anthropic", Wire::Anthropic},
                                           {"openai-chat", Wire::OpenAIChat},
                                           {"openai-responses", Wire::OpenAIResponses},
                                           {"gemini", Wire::Gemini},
                                           {"bedrock-converse", Wire::BedrockConverse},
                                           {"mcp", Wire::Mcp}});
        if (parsed) endpoint.wire = *parsed;
        if (parsed == Wire::BedrockConverse && provider.platform != Platform::Bedrock) {
          reader.error(wire->value_at, "wire of " + what + ": bedrock-converse is Bedrock's Converse API and needs "
                                       "platform: bedrock on provider '" + provider.id + "'");
        }
      } else {
        reader.error(e.key_at,
                     what + " needs wire: anthropic, openai-chat, openai-responses, gemini, bedrock-converse or mcp");
      }
      if (endpoint.wire == Wire::Mcp && provider.platform != Platform::Direct) {
        reader.error(wire->value_at, "wire of " + what + ": an MCP server (wire: mcp) is reached directly; provider '" +
                                         provider.id + "' has a platform:");
      }
      if (endpoint.wire == Wire::Mcp && fields.find("presence")) {
        reader.error(e.key_at, what + " is an MCP server (wire: mcp): presence: is for own model machines");
      }
      if (const Entry* header = fields.find("auth_header")) {
        if (auto name = reader.string(*header, "auth_header of " + what)) {
          static constexpr std::string_view kForbidden[] = {"host", "content-length", "content-type", "transfer-encoding",
                                                            "connection", "mcp-session-id", "accept"};
          std::string lower;
          for (char c : *name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          const bool token = !name->empty() && name->size() <= 64 &&
                             std::ranges::all_of(*name, [](char c) {
                               return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
                             });
          if (endpoint.wire != Wire::Mcp) {
            reader.error(header->key_at, "auth_header of " + what + " is for MCP servers (wire: mcp)");
          } else if (!token || std::ranges::find(kForbidden, std::string_view(lower)) != std::end(kForbidden)) {
            reader.error(header->value_at, "auth_header of " + what + " must be a header name (letters, digits, "
                                           "'-', '_'; at most 64) other than the framing and session headers");
          } else {
            endpoint.auth_header = *name;
          }
        }
      }
      if (const Entry* presence = fields.find("presence")) {
        if (auto node = reader.string(*presence, "presence of " + what)) {
          if (checkName(reader, {*node, presence->value_at}, "presence node")) endpoint.presence_node = *node;
        }
      }
      if (provider.platform == Platform::Bedrock && endpoint.wire != Wire::Anthropic &&
          endpoint.wire != Wire::BedrockConverse) {
        reader.error(e.key_at, what + " is on platform: bedrock, which serves wire: anthropic (InvokeModel) and "
                                      "bedrock-converse (Converse)");
      }
      readEndpointPlatform(reader, e, fields.find("api_version"), what, provider, endpoint);
      if (const Entry* url = fields.find("url")) {
        endpoint.url = readUrl(reader, *url, "url of " + what).value_or("");
      } else if (!platformDefaultUrl(provider).empty()) {
        endpoint.url = platformDefaultUrl(provider);
      } else if (!fields.find("presence")) {
        reader.error(e.key_at, what + " needs url (only an endpoint with presence: may leave it out, to use the "
                                      "address its presence hub reports)");
      }
      if (const Entry* skip_busy = fields.find("skip_busy")) {
        endpoint.skip_busy = reader.boolean(*skip_busy, "skip_busy of " + what).value_or(false);
        if (!fields.find("presence")) {
          reader.error(skip_busy->key_at, "skip_busy of " + what + " needs presence: (only a presence hub says a node is busy)");
        }
      }
      if (const Entry* limit = fields.find("max_input_bytes")) {
        endpoint.max_input_bytes = reader.integer(*limit, "max_input_bytes of " + what, 1, kMaxInputBytes);
      }
      if (const Entry* trust = fields.find("trust")) endpoint.trust_written = readTrust(reader, *trust, what);
      if (const Entry* hosts = fields.find("presence_hosts")) readPresenceHosts(reader, *hosts, what, fields, endpoint);
      if (const Entry* credential = fields.find("credential")) {
        if (auto id = reader.string(*credential, "credential of " + what)) {
          if (checkName(reader, {*id, credential->value_at}, "credential")) endpoint.credential_id = *id;
        }
      }
    }
    provider.endpoints.push_back(std::move(endpoint));
  }
}

template <typename Setter>
void readIntFields(YamlReader& reader, const Entry& entry, const std::string& what,
                   std::initializer_list<std::string_view> keys, Setter set) {
  Fields fields = reader.fields(entry, what, keys);
  for (const Entry& e : fields.entries()) set(e, e.key + " of " + what);
}

void readPolicies(YamlReader& reader, const Fields& fields, const std::string& owner,
                  Provider& provider) {
  if (const Entry* retry = fields.find("retry")) {
    readIntFields(reader, *retry, "retry of " + owner, {"attempts", "backoff_ms"},
                  [&](const Entry& e, const std::string& what) {
                    if (e.key == "attempts") {
                      provider.retry.attempts = reader.integer(e, what, 0, 10).value_or(provider.retry.attempts);
                    } else {
                      provider.retry.backoff_ms = reader.integer(e, what, 0, 60'000).value_or(provider.retry.backoff_ms);
                    }
                  });
  }
  if (const Entry* breaker = fields.find("breaker")) {
    readIntFields(reader, *breaker, "breaker of " + owner, {"failures", "cooldown_s"},
                  [&](const Entry& e, const std::string& what) {
                    if (e.key == "failures") {
                      provider.breaker.failures = reader.integer(e, what, 1, 1000).value_or(provider.breaker.failures);
                    } else {
                      provider.breaker.cooldown_s = reader.integer(e, what, 1, 3600).value_or(provider.breaker.cooldown_s);
                    }
                  });
  }
  if (const Entry* timeouts = fields.find("timeouts")) {
    readIntFields(reader, *timeouts, "timeouts of " + owner,
                  {"connect_ms", "first_byte_ms", "idle_ms"},
                  [&](const Entry& e, const std::string& what) {
                    int* target = e.key == "connect_ms"      ? &provider.timeouts.connect_ms
                                  : e.key == "first_byte_ms" ? &provider.timeouts.first_byte_ms
                                                             : &provider.timeouts.idle_ms;
                    *target = static_cast<int>(reader.integer(e, what, 1, kMaxTimeoutMs).value_or(*target));
                  });
  }
}

ProviderDraft readProvider(YamlReader& reader, const Entry& entry) {
  ProviderDraft draft;
  Provider& provider = draft.provider;
  provider.id = entry.key;
  provider.display_name = entry.key;
  provider.where = entry.key_at;
  draft.credential_at = entry.key_at;
  std::string owner = "provider '" + entry.key + "'";
  Fields fields = reader.fields(entry, owner,
                                {"display_name", "credential", "headers", "forward_headers", "user_agent",
                                 "governance", "retry", "breaker", "timeouts", "trust", "endpoints", "platform",
                                 "region", "project", "url"});
  if (!fields.ok()) return draft;
  if (const Entry* e = fields.find("display_name")) {
    provider.display_name = reader.string(*e, "display_name of " + owner).value_or(entry.key);
  }
  if (const Entry* e = fields.find("credential")) {
    provider.credential_id = reader.string(*e, "credential of " + owner).value_or("");
    draft.credential_at = e->value_at;
  } else {
    reader.error(entry.key_at, owner + " needs credential");
  }
  if (const Entry* e = fields.find("headers")) readHeaders(reader, *e, owner, provider);
  if (const Entry* e = fields.find("forward_headers")) {
    for (const auto& name : reader.stringList(*e, "forward_headers of " + owner).value_or(
             std::vector<Located<std::string>>{})) {
      const std::string lower = lowercase(name.value);
      if (lower.empty() || !std::ranges::all_of(lower, isHeaderNameChar)) {
        reader.error(name.where, "header name '" + name.value + "' in forward_headers of " + owner +
                                     " is not valid");
      } else if (isAuthHeader(lower) || isGatewayHeader(lower) || isFramingHeader(lower)) {
        reader.error(name.where, "forward_headers of " + owner + " may not name '" + name.value +
                                     "': the caller's credentials, its session with the gateway and framing never reach a "
                                     "provider");
      } else if (std::ranges::find(provider.forward_headers, lower) == provider.forward_headers.end()) {
        provider.forward_headers.push_back(lower);
      }
    }
  }
  if (const Entry* e = fields.find("user_agent")) {
    provider.user_agent = reader.string(*e, "user_agent of " + owner).value_or("");
  }
  if (const Entry* e = fields.find("governance")) {
    Fields governance = reader.fields(*e, "governance of " + owner, {"european", "no_retain"});
    for (const Entry& flag : governance.entries()) {
      bool& target = flag.key == "european" ? provider.governance.european : provider.governance.no_retain;
      target = reader.boolean(flag, flag.key + " of " + owner).value_or(false);
    }
  }
  readPolicies(reader, fields, owner, provider);
  if (const Entry* e = fields.find("trust")) provider.trust = readTrust(reader, *e, owner);
  readPlatform(reader, fields.find("platform"), fields.find("region"), owner, provider);
  readProject(reader, fields.find("project"), fields.find("platform"), owner, provider);
  if (const Entry* e = fields.find("url")) provider.url = readUrl(reader, *e, "url of " + owner).value_or("");
  if (const Entry* e = fields.find("endpoints")) {
    readEndpoints(reader, *e, owner, provider);
  } else {
    reader.error(entry.key_at, owner + " needs endpoints");
  }
  return draft;
}

}  // namespace

void parseProviders(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "providers");
  if (!body) return;
  Fields providers = reader.fields(*body, "providers");
  if (!providers.ok()) return;
  draft.providers_loaded = true;
  for (const Entry& entry : providers.entries()) {
    checkName(reader, {entry.key, entry.key_at}, "provider");
    draft.providers.push_back(readProvider(reader, entry));
  }
}

}  // namespace sluice::catalog
