#include <string>
#include <vector>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

std::string trimTrailingWhitespace(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

// Reads the secret a reference (env:NAME or file:PATH) points at. A missing source is not an
// error: the credential stays unconfigured (its deployments are skipped) and boot goes on with a
// warning. NOTE: messages name the variable or path, never the secret itself.
std::optional<std::string> resolveSecretRef(YamlReader& reader, const ParseContext& context,
                                            const Location& where, const std::string& credential_id,
                                            const std::string& ref, const std::string& label) {
  std::string unconfigured = "credential '" + credential_id + "' is unconfigured: ";
  std::string consequence = "; its deployments are skipped";
  if (ref.starts_with("env:")) {
    std::string name = ref.substr(4);
    if (name.empty()) {
      reader.error(where, label + " of credential '" + credential_id + "' names no variable after 'env:'");
      return std::nullopt;
    }
    auto found = context.env.find(name);
    if (found == context.env.end()) {
      reader.warning(where, unconfigured + "environment variable " + name + " is not set" + consequence);
      return std::nullopt;
    }
    std::string value = trimTrailingWhitespace(found->second);
    if (value.empty()) {
      reader.warning(where, unconfigured + "environment variable " + name + " is empty" + consequence);
      return std::nullopt;
    }
    return value;
  }
  if (ref.starts_with("file:")) {
    std::string path = ref.substr(5);
    if (path.empty()) {
      reader.error(where, label + " of credential '" + credential_id + "' names no path after 'file:'");
      return std::nullopt;
    }
    auto found = context.secret_files.find(path);
    if (found == context.secret_files.end()) {
      reader.warning(where, unconfigured + "file " + path + " could not be read" + consequence);
      return std::nullopt;
    }
    std::string value = trimTrailingWhitespace(found->second);
    if (value.empty()) {
      reader.warning(where, unconfigured + "file " + path + " is empty" + consequence);
      return std::nullopt;
    }
    return value;
  }
  reader.error(where, label + " of credential '" + credential_id +
                          "' must be env:NAME or file:PATH; secrets are never written in the catalog");
  return std::nullopt;
}

namespace {

Credential readCredential(YamlReader& reader, const ParseContext& context, const Entry& entry) {
  Credential credential;
  credential.id = entry.key;
  credential.where = entry.key_at;
  std::string what = "credential '" + entry.key + "'";
  Fields fields = reader.fields(entry, what, {"kind", "secret", "aws", "gcp", "azure", "description"});
  if (!fields.ok()) return credential;

  const Entry* kind = fields.find("kind");
  std::optional<CredentialKind> parsed_kind;
  if (kind == nullptr) {
    reader.error(entry.key_at, what + " needs kind: platform or personal");
  } else {
    parsed_kind = reader.choice<CredentialKind>(
        *kind, "kind of " + what,
        {{"platform", CredentialKind::Platform}, {"personal", CredentialKind::Personal}});
  }
  if (parsed_kind) credential.kind = *parsed_kind;

  if (const Entry* description = fields.find("description")) {
    credential.description = reader.string(*description, "description of " + what).value_or("");
  }

  const Entry* secret = fields.find("secret");
  const Entry* aws = fields.find("aws");
  const Entry* gcp = fields.find("gcp");
  const Entry* azure = fields.find("azure");
  if (!parsed_kind) return credential;
  if (credential.kind == CredentialKind::Personal) {
    if (const Entry* given = secret ? secret : aws ? aws : gcp ? gcp : azure) {
      reader.error(given->key_at,
                   "personal " + what + " must not have a secret: each member stores their own key");
    }
    return credential;
  }
  std::vector<std::string> given;
  for (const auto& [name, e] : {std::pair{"secret:", secret}, {"aws:", aws}, {"gcp:", gcp}, {"azure:", azure}}) {
    if (e != nullptr) given.emplace_back(name);
  }
  if (given.size() > 1) {
    reader.error((aws ? aws : gcp ? gcp : azure)->key_at,
                 "platform " + what + " has both " + given[0] + " and " + given[1] + "; give one");
    return credential;
  }
  if (gcp != nullptr) {
    credential.gcp = readGcpCredential(reader, context, *gcp, credential.id);
    return credential;
  }
  if (azure != nullptr) {
    credential.azure = readAzureCredential(reader, context, *azure, credential.id);
    return credential;
  }
  if (aws != nullptr) {
    credential.aws = readAwsCredential(reader, context, *aws, credential.id);
    return credential;
  }
  if (secret == nullptr) {
    reader.error(entry.key_at,
                 "platform " + what + " needs secret: env:NAME or secret: file:PATH");
    return credential;
  }
  if (std::optional<std::string> ref = reader.string(*secret, "secret of " + what)) {
    credential.secret_ref = *ref;
    credential.secret = resolveSecretRef(reader, context, secret->value_at, credential.id, *ref, "secret");
  }
  return credential;
}

}  // namespace

void parseCredentials(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "credentials");
  if (!body) return;
  Fields credentials = reader.fields(*body, "credentials");
  if (!credentials.ok()) return;
  draft.credentials_loaded = true;
  for (const Entry& entry : credentials.entries()) {
    checkName(reader, {entry.key, entry.key_at}, "credential");
    draft.credentials.push_back(readCredential(reader, context, entry));
  }
}

}  // namespace sluice::catalog
