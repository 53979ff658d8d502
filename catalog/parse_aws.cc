// AWS in the catalog: a platform credential's `aws:` block and a provider's `platform: bedrock`
// with its `region:` (docs/catalog.md, "AWS Bedrock").
#include <algorithm>
#include <cctype>
#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

bool validRegion(std::string_view region) {
  return !region.empty() && region.size() <= 32 && std::islower(static_cast<unsigned char>(region.front())) &&
         std::ranges::all_of(region, [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '-'; });
}

bool validRoleArn(std::string_view arn) {
  return arn.size() <= 2048 && arn.starts_with("arn:aws") && arn.find(":iam::") != std::string_view::npos &&
         arn.find(":role/") != std::string_view::npos &&
         std::ranges::none_of(arn, [](unsigned char c) { return std::isspace(c) || std::iscntrl(c); });
}

// The chain's first link: the standard environment variables, read at load like env:NAME. When
// they are not set the other links (web identity, container credentials, IMDSv2) are fetched at
// run time (server/cloud/aws_chain.h).
void readEnvironmentLink(const ParseContext& context, AwsCredential& aws) {
  auto value = [&](const char* name) -> std::optional<std::string> {
    auto found = context.env.find(name);
    if (found == context.env.end() || found->second.empty()) return std::nullopt;
    return found->second;
  };
  aws.access_key_id = value("AWS_ACCESS_KEY_ID");
  aws.secret_access_key = value("AWS_SECRET_ACCESS_KEY");
  aws.session_token = value("AWS_SESSION_TOKEN").value_or("");
  if (!aws.access_key_id || !aws.secret_access_key) {
    aws.access_key_id.reset();
    aws.secret_access_key.reset();
    aws.session_token.clear();
  }
}

}  // namespace

AwsCredential readAwsCredential(YamlReader& reader, const ParseContext& context, const Entry& entry,
                                const std::string& credential_id) {
  AwsCredential aws;
  const std::string what = "aws of credential '" + credential_id + "'";
  Fields fields = reader.fields(entry, what,
                                {"access_key_id", "secret_access_key", "session_token", "chain", "role_arn"});
  if (!fields.ok()) return aws;
  const Entry* chain = fields.find("chain");
  const Entry* key_id = fields.find("access_key_id");
  const Entry* secret = fields.find("secret_access_key");
  const Entry* token = fields.find("session_token");
  const Entry* role = fields.find("role_arn");
  if (chain != nullptr) {
    if (key_id || secret || token) {
      reader.error(chain->key_at, what + " has chain: and keys; give chain: default, or access_key_id: and "
                                         "secret_access_key:");
      return aws;
    }
    aws.chain = reader.choice<bool>(*chain, "chain of " + what, {{"default", true}}).value_or(false);
    if (!aws.chain) return aws;
    if (role != nullptr) {
      auto arn = reader.string(*role, "role_arn of " + what);
      if (!arn) return aws;
      if (!validRoleArn(*arn)) {
        reader.error(role->value_at, "role_arn of " + what + " must be an IAM role ARN "
                                     "(arn:aws:iam::ACCOUNT:role/NAME), got '" + *arn + "'");
        return aws;
      }
      aws.role_arn = *arn;  // assumed at run time with STS AssumeRole (server/cloud/aws_credentials.h)
    }
    readEnvironmentLink(context, aws);
    return aws;
  }
  if (role != nullptr) reader.error(role->key_at, "role_arn of " + what + " needs chain: default");
  if (key_id == nullptr || secret == nullptr) {
    reader.error(entry.key_at, what + " needs access_key_id: and secret_access_key: (env:NAME or file:PATH), "
                                      "or chain: default");
    return aws;
  }
  auto resolve = [&](const Entry& e, const std::string& label, std::string& ref) -> std::optional<std::string> {
    auto text = reader.string(e, label + " of " + what);
    if (!text) return std::nullopt;
    ref = *text;
    return resolveSecretRef(reader, context, e.value_at, credential_id, ref, label);
  };
  aws.access_key_id = resolve(*key_id, "access_key_id", aws.access_key_id_ref);
  aws.secret_access_key = resolve(*secret, "secret_access_key", aws.secret_access_key_ref);
  if (token != nullptr) {
    auto value = resolve(*token, "session_token", aws.session_token_ref);
    if (!value) {  // a token named but missing would be signed without: AWS refuses that anyway
      aws.access_key_id.reset();
      aws.secret_access_key.reset();
    } else {
      aws.session_token = *value;
    }
  }
  return aws;
}

void readPlatform(YamlReader& reader, const Entry* platform, const Entry* region, const std::string& owner,
                  Provider& provider) {
  if (platform != nullptr) {
    provider.platform = reader.choice<Platform>(*platform, "platform of " + owner,
                                                {{"bedrock", Platform::Bedrock},
                                                 {"vertex", Platform::Vertex},
                                                 {"azure", Platform::Azure}})
                            .value_or(Platform::Direct);
  }
  if (region != nullptr) {
    if (provider.platform != Platform::Bedrock && provider.platform != Platform::Vertex) {
      reader.error(region->key_at, "region of " + owner + " needs platform: bedrock or vertex");
      return;
    }
    auto text = reader.string(*region, "region of " + owner);
    if (!text) return;
    if (!validRegion(*text)) {
      reader.error(region->value_at, "region of " + owner +
                                         (provider.platform == Platform::Vertex
                                              ? " must be a Google Cloud location such as europe-west1 or global"
                                              : " must be an AWS region such as us-east-1") +
                                         ", got '" + *text + "'");
      return;
    }
    provider.region = *text;
  } else if (provider.platform == Platform::Bedrock && platform != nullptr) {
    reader.error(platform->key_at, owner + " with platform: bedrock needs region: (the signing region, e.g. "
                                           "us-east-1)");
  } else if (provider.platform == Platform::Vertex && platform != nullptr) {
    reader.error(platform->key_at, owner + " with platform: vertex needs region: (a location such as "
                                           "europe-west1, or global)");
  }
}

std::string platformDefaultUrl(const Provider& provider) {
  if (provider.platform == Platform::Bedrock && !provider.region.empty()) {
    return "https://bedrock-runtime." + provider.region + ".amazonaws.com";
  }
  if (!provider.url.empty()) return provider.url;
  if (provider.platform == Platform::Vertex) return vertexDefaultUrl(provider);
  return "";
}

}  // namespace sluice::catalog
