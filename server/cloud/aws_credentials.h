#pragma once
// The AWS keys a Bedrock call is signed with, for a catalog credential with `aws:`: the keys the
// catalog resolved (access_key_id/secret_access_key/session_token, or chain: default's
// environment variables, read at load). Thread-safe; shared by every fiber through the Gateway.
//
// NOTE: chain: default reads only the environment link today; web identity, container
// credentials, IMDSv2 and role_arn (AssumeRole) are not fetched yet, and such a credential is
// reported unusable (docs/catalog.md, "AWS Bedrock").

#include <chrono>
#include <expected>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/upstream/sigv4.h"

namespace sluice::cloud {

class AwsCredentialStore {
 public:
  // The keys for `credential` (which has `aws:`), or why none can be had (never a secret).
  std::expected<upstream::aws::Credentials, std::string> get(const catalog::Credential& credential,
                                                            std::chrono::system_clock::time_point now) const;

  // Each `aws:` credential of `catalog`: usable or why not (for /readyz).
  struct Standing {
    std::string id;
    bool usable = false;
    std::string detail;
  };
  std::vector<Standing> standing(const catalog::Catalog& catalog, std::chrono::system_clock::time_point now) const;
};

}  // namespace sluice::cloud
