#pragma once
// The mock's AWS credential sources, answering as AWS does, each handing out temporary credentials
// from the AwsKeyring that live keys.lifetime() (--aws-credentials-lifetime, so a test can watch
// them expire and be refreshed):
//  POST /sts…  STS's Query API: AssumeRoleWithWebIdentity (RoleArn, RoleSessionName,
//              WebIdentityToken) and AssumeRole (SigV4 for service `sts` checked as Bedrock's is:
//              SignatureDoesNotMatch, InvalidClientTokenId, ExpiredToken…), STS's XML both ways;
//  GET  /container/credentials  the ECS / EKS Pod Identity endpoint: JSON keys; the Authorization
//              must equal keys.containerToken() when one is configured (401 otherwise);
//  IMDSv2:     PUT /latest/api/token (X-aws-ec2-metadata-token-ttl-seconds required), then with
//              X-aws-ec2-metadata-token: GET /latest/meta-data/iam/security-credentials/ (the
//              role's name) and …/security-credentials/<role> (JSON keys, "Code": "Success");
//              without the token 401; any other /latest/ path 404;
//  GET  /_mock/aws  {"issued": N, "served": {source: answers}}: the container endpoint and IMDS
//              answer with the same credentials until half their life has passed, as AWS's do.
// Pure apart from the keyring. (The Poco handler waits --aws-credentials-delay-ms before each
// answer but /_mock/aws's: a slow metadata service.)

#include <chrono>
#include <optional>
#include <string>

#include "tools/mock-provider/aws_keyring.h"
#include "tools/mock-provider/received_request.h"

namespace sluice::mock {

struct AwsAnswer {
  int status = 200;
  std::string content_type;
  std::string body;
};

// True for the paths answered here.
bool isAwsCredentialPath(const std::string& path);

AwsAnswer answerAwsCredentials(const ReceivedRequest& request, AwsKeyring& keys, std::chrono::system_clock::time_point now);

}  // namespace sluice::mock
