// gateway.console: how people sign in to the console (console_settings.h, docs/identity.md).
#include "catalog/parsers.h"

namespace sluice::catalog {

std::string_view toString(MemberClaim claim) {
  switch (claim) {
    case MemberClaim::Email: return "email";
    case MemberClaim::PreferredUsername: return "preferred_username";
    case MemberClaim::Sub: return "sub";
  }
  return "email";
}

namespace {

// http:// is for an issuer on this machine only (a test or a sidecar): tokens and codes cross the wire.
bool loopbackHttp(std::string_view url) {
  for (std::string_view host : {"http://localhost", "http://127.0.0.1", "http://[::1]"}) {
    if (url.starts_with(host) && (url.size() == host.size() || url[host.size()] == ':' || url[host.size()] == '/')) {
      return true;
    }
  }
  return false;
}

// The client secret a reference (env:NAME or file:PATH) points at. As for a provider credential,
// an unset or empty one is a warning, not an error (sluicectl reads this catalog without the
// gateway's environment): sign-on is then unavailable, and says why.
std::string readClientSecret(YamlReader& reader, const ParseContext& context, const Entry& entry,
                             const std::string& ref, std::string& unavailable) {
  const std::string what = "client_secret of console.oidc";
  const auto trimmed = [](std::string value) {
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r' || value.back() == ' ' || value.back() == '\t')) {
      value.pop_back();
    }
    return value;
  };
  std::string where;
  std::string value;
  if (ref.starts_with("env:") && ref.size() > 4) {
    where = "environment variable " + ref.substr(4);
    const auto found = context.env.find(ref.substr(4));
    if (found != context.env.end()) value = trimmed(found->second);
  } else if (ref.starts_with("file:") && ref.size() > 5) {
    where = "file " + ref.substr(5);
    const auto found = context.secret_files.find(ref.substr(5));
    if (found != context.secret_files.end()) value = trimmed(found->second);
  } else {
    reader.error(entry.value_at, what + " must be env:NAME or file:PATH; secrets are never written in the catalog");
    return {};
  }
  if (value.empty()) {
    unavailable = "the client secret (" + where + ") is not set or empty";
    reader.warning(entry.value_at, "single sign-on is unavailable: " + what + " names " + where + ", which is not set or empty");
  }
  return value;
}

std::vector<std::string> names(YamlReader& reader, const Entry& entry, const std::string& what) {
  std::vector<std::string> out;
  const auto list = reader.stringList(entry, what, true);
  if (!list) return out;
  for (const auto& item : *list) {
    if (item.value.empty() || item.value.size() > 128) {
      reader.error(item.where, "each of " + what + " must be 1 to 128 characters");
      continue;
    }
    out.push_back(item.value);
  }
  return out;
}

OidcSettings readOidc(YamlReader& reader, const ParseContext& context, const Entry& entry) {
  OidcSettings oidc;
  Fields fields = reader.fields(entry, "console.oidc",
                                {"issuer", "client_id", "client_secret", "scopes", "member_claim", "groups_claim",
                                 "admin_groups", "provision", "display_name"});
  if (!fields.ok()) return oidc;
  if (const Entry* issuer = fields.find("issuer")) {
    if (auto text = reader.string(*issuer, "issuer of console.oidc")) {
      if (!text->starts_with("https://") && !loopbackHttp(*text)) {
        reader.error(issuer->value_at, "issuer of console.oidc must be an https:// URL (http:// only on localhost), e.g. "
                                       "https://login.example.com/realms/acme");
      } else if (text->size() > 1024) {
        reader.error(issuer->value_at, "issuer of console.oidc is longer than 1024 characters");
      } else {
        oidc.issuer = *text;
      }
    }
  } else {
    reader.error(entry.key_at, "console.oidc needs issuer: the provider's issuer URL");
  }
  if (const Entry* id = fields.find("client_id")) {
    if (auto text = reader.string(*id, "client_id of console.oidc")) {
      if (text->empty() || text->size() > 256) reader.error(id->value_at, "client_id of console.oidc must be 1 to 256 characters");
      else oidc.client_id = *text;
    }
  } else {
    reader.error(entry.key_at, "console.oidc needs client_id: the client registered for the console");
  }
  if (const Entry* secret = fields.find("client_secret")) {
    if (auto ref = reader.string(*secret, "client_secret of console.oidc")) {
      oidc.client_secret_ref = *ref;
      oidc.client_secret = readClientSecret(reader, context, *secret, *ref, oidc.unavailable);
    }
  }
  if (const Entry* scopes = fields.find("scopes")) {
    oidc.scopes = names(reader, *scopes, "scopes of console.oidc");
    if (std::find(oidc.scopes.begin(), oidc.scopes.end(), "openid") == oidc.scopes.end()) {
      reader.error(scopes->value_at, "scopes of console.oidc must include openid");
    }
    for (const auto& scope : oidc.scopes) {
      if (scope.find_first_of(" \t\r\n\"") != std::string::npos) {
        reader.error(scopes->value_at, "scope '" + scope + "' of console.oidc holds a space or a quote");
      }
    }
  }
  if (const Entry* claim = fields.find("member_claim")) {
    oidc.member_claim = reader
                            .choice<MemberClaim>(*claim, "member_claim of console.oidc",
                                                 {{"email", MemberClaim::Email},
                                                  {"preferred_username", MemberClaim::PreferredUsername},
                                                  {"sub", MemberClaim::Sub}})
                            .value_or(MemberClaim::Email);
  }
  if (const Entry* claim = fields.find("groups_claim")) {
    oidc.groups_claim = reader.string(*claim, "groups_claim of console.oidc").value_or("");
  }
  if (const Entry* groups = fields.find("admin_groups")) oidc.admin_groups = names(reader, *groups, "admin_groups of console.oidc");
  if (!oidc.admin_groups.empty() && oidc.groups_claim.empty()) {
    reader.error(entry.key_at, "admin_groups of console.oidc needs groups_claim: the claim that lists a person's groups");
  }
  if (const Entry* provision = fields.find("provision")) {
    oidc.provision = reader.boolean(*provision, "provision of console.oidc").value_or(false);
  }
  if (const Entry* name = fields.find("display_name")) {
    if (auto text = reader.string(*name, "display_name of console.oidc")) {
      if (text->empty() || text->size() > 64) reader.error(name->value_at, "display_name of console.oidc must be 1 to 64 characters");
      else oidc.display_name = *text;
    }
  }
  if (oidc.display_name.empty() && !oidc.issuer.empty()) {
    // The issuer's host: "Sign in with login.example.com".
    std::string host = oidc.issuer.substr(oidc.issuer.find("://") + 3);
    host = host.substr(0, host.find('/'));
    oidc.display_name = host;
  }
  return oidc;
}

}  // namespace

void readConsole(YamlReader& reader, const ParseContext& context, const Entry& entry, ConsoleSettings& console) {
  Fields fields = reader.fields(entry, "console", {"oidc", "key_sign_in"});
  if (!fields.ok()) return;
  if (const Entry* oidc = fields.find("oidc"); oidc != nullptr && !oidc->value.IsNull()) {
    console.oidc = readOidc(reader, context, *oidc);
  }
  if (const Entry* keys = fields.find("key_sign_in")) {
    console.key_sign_in = reader.boolean(*keys, "key_sign_in of console").value_or(true);
    if (!console.key_sign_in && !console.oidc) {
      reader.error(keys->value_at, "key_sign_in: false needs console.oidc: without either, no one could sign in");
    }
  }
}

}  // namespace sluice::catalog
