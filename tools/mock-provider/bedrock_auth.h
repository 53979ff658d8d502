#pragma once
// Bedrock's authentication, checked the way AWS checks it: a SigV4 signature recomputed with the
// real algorithm from what was received (canonical request with the path's segments encoded
// again, the signed headers, the payload's SHA-256; string to sign; the key derived from the
// secret for the day, region and service), or a Bedrock API key as `Authorization: Bearer`.

#include <chrono>
#include <optional>
#include <string>

#include "tools/mock-provider/aws_keyring.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/received_request.h"

namespace sluice::mock {

// nullopt when the request may proceed; otherwise AWS's refusal: 403 with `type` the
// x-amzn-ErrorType (MissingAuthenticationTokenException, IncompleteSignatureException,
// UnrecognizedClientException, ExpiredTokenException, InvalidSignatureException — a wrong secret
// or a tampered request —, AccessDeniedException for a bad API key) and AWS's message.
// `api_key`, when set, is the only Bedrock API key accepted (else any non-empty one).
std::optional<ErrorSpec> checkBedrockAuth(const ReceivedRequest& request, const AwsKeyring& keys,
                                          const std::optional<std::string>& api_key,
                                          std::chrono::system_clock::time_point now);

// The SigV4 part alone, for `service` ("bedrock", "sts"): the same checks and refusals.
std::optional<ErrorSpec> checkAwsSignature(const ReceivedRequest& request, const AwsKeyring& keys,
                                           const std::string& service, std::chrono::system_clock::time_point now);

}  // namespace sluice::mock
