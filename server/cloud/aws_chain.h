#pragma once
// The links of AWS's default credential chain after the environment variables (which the catalog
// reads at load), fetched the way AWS's SDKs fetch them, and STS AssumeRole on top:
//  1. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN [+ AWS_ROLE_SESSION_NAME] → STS
//     AssumeRoleWithWebIdentity (unsigned; EKS IRSA);
//  2. container credentials: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (on 169.254.170.2) or
//     AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or http to loopback / the ECS and EKS Pod
//     Identity link-local hosts), with AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or
//     AWS_CONTAINER_AUTHORIZATION_TOKEN as the Authorization header;
//  3. IMDSv2 (unless AWS_EC2_METADATA_DISABLED=true): PUT /latest/api/token, then the role name,
//     then its credentials, at AWS_EC2_METADATA_SERVICE_ENDPOINT (default http://169.254.169.254).
// The first link whose variables are set answers (its failure is the chain's: a misconfigured
// web identity does not fall through to the instance's role). STS is at AWS_ENDPOINT_URL_STS,
// else AWS_ENDPOINT_URL, else https://sts.<AWS_REGION>.amazonaws.com (sts.amazonaws.com without a
// region); AssumeRole is signed for AWS_REGION / AWS_DEFAULT_REGION (us-east-1 without one).
//
// Every request goes through the gateway's upstream::Transport (on a fiber its waits park the
// fiber), bounded: connect and read timeouts (1 s for IMDS, as the SDKs), answers of at most
// 64 KiB; token files are read on a helper thread, at most 16 KiB. Reasons never quote a key or
// a token.

#include <chrono>
#include <expected>
#include <functional>
#include <optional>
#include <string>

#include "server/cloud/aws_answers.h"
#include "server/upstream/transport.h"

namespace sluice::cloud {

// Reads an environment variable (nullopt when unset or empty); the process's by default, a map's
// in tests.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment processEnvironment();

struct ChainKeys {
  TemporaryKeys keys;
  std::string source;  // "web identity", "container credentials", "instance metadata (IMDSv2)"
};

// The keys of the first configured link (1-3 above), or why none can be had.
std::expected<ChainKeys, std::string> fetchChainLinks(upstream::Transport& transport, const Environment& env,
                                                      std::chrono::system_clock::time_point now);

// STS AssumeRole for `role_arn`, signed with `base`.
std::expected<TemporaryKeys, std::string> assumeRole(upstream::Transport& transport, const Environment& env,
                                                     const upstream::aws::Credentials& base,
                                                     const std::string& role_arn,
                                                     std::chrono::system_clock::time_point now);

}  // namespace sluice::cloud
