#pragma once
// Vertex AI's and Azure OpenAI's own rules on a model call, before the wire's answer. Pure.
//  - Vertex (a `/publishers/` path): `Authorization: Bearer` with an access token the mock's Google
//    token endpoint or metadata server issued and that has not expired (else Google's 401
//    UNAUTHENTICATED); Claude's rawPredict body without `model` and with anthropic_version
//    "vertex-2023-10-16" (anthropic_beta allowed), read as a Messages body for the model in the path;
//    `…/models/count-tokens:rawPredict` the same body with its `model`, answered as count_tokens.
//  - Azure (an `api-key` header, a token the mock's Entra ID issued, or the classic
//    `/openai/deployments/…` path): the key (--api-key when set, else any) or a valid Entra token;
//    `api-version` on the classic API (`/openai/…` but not `/openai/v1/…`) else 404; Claude on AI
//    Foundry still needs anthropic-version. Errors in Azure's shape {"error":{"code","message"}};
//    a scripted 400 with error_code content_filter is Azure's prompt filter, with its innererror.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tools/mock-provider/cloud_identity.h"
#include "tools/mock-provider/received_request.h"
#include "tools/mock-provider/route.h"
#include "tools/mock-provider/script.h"

namespace sluice::mock {

struct CloudRefusal {
  int status = 400;
  std::string body;  // the platform's JSON
  std::string note;  // for the log line
};

struct CloudCheck {
  bool azure = false;                  // the call was taken as Azure's
  bool vertex = false;
  std::optional<CloudRefusal> refusal;
  std::optional<std::string> messages_body;  // Vertex Claude: the body as a Messages request
};

CloudCheck checkCloudRequest(const Route& route, const ReceivedRequest& request,
                             const std::optional<std::string>& api_key, const TokenRing& google_tokens,
                             const TokenRing& entra_tokens, std::chrono::system_clock::time_point now);

// A scripted error status on an Azure call, in Azure's shape: {"error":{"code": error_code or the
// status, "message"}}; content_filter adds param "prompt", status and innererror
// {code: ResponsibleAIPolicyViolation, content_filter_result}.
std::string azureErrorBody(int status, const Script& script);

// The chunk Azure streams first on Chat: no choices, the prompt's filter results.
std::string azurePromptFilterFrame();

}  // namespace sluice::mock
