#include "server/cloud/aws_credentials.h"

namespace sluice::cloud {

std::expected<upstream::aws::Credentials, std::string> AwsCredentialStore::get(
    const catalog::Credential& credential, std::chrono::system_clock::time_point) const {
  if (!credential.aws) return std::unexpected("credential '" + credential.id + "' has no aws: keys");
  const catalog::AwsCredential& aws = *credential.aws;
  if (!aws.role_arn.empty()) {
    return std::unexpected("credential '" + credential.id + "': assuming role_arn (STS AssumeRole) is not "
                           "supported yet");
  }
  if (aws.access_key_id && aws.secret_access_key) {
    return upstream::aws::Credentials{*aws.access_key_id, *aws.secret_access_key, aws.session_token};
  }
  if (aws.chain) {
    return std::unexpected("credential '" + credential.id + "': chain: default found no AWS keys (only the "
                           "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY environment variables are read)");
  }
  return std::unexpected("credential '" + credential.id + "': its AWS keys could not be read");
}

std::vector<AwsCredentialStore::Standing> AwsCredentialStore::standing(const catalog::Catalog& catalog,
                                                                       std::chrono::system_clock::time_point now) const {
  std::vector<Standing> out;
  for (const catalog::Credential& credential : catalog.credentials) {
    if (!credential.aws) continue;
    auto keys = get(credential, now);
    out.push_back({credential.id, keys.has_value(), keys ? "keys" : keys.error()});
  }
  return out;
}

}  // namespace sluice::cloud
