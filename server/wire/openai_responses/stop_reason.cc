#include "server/wire/openai_responses/stop_reason.h"

#include "server/wire/json_access.h"

namespace sluice::wire::openai_responses {

StopReason stopReasonFor(const Json& response, bool saw_function_call, bool saw_refusal) {
  const std::string status = stringMember(response, "status");
  if (status == "incomplete") {
    const std::string reason = member(response, "incomplete_details") != nullptr
                                   ? stringMember(*member(response, "incomplete_details"), "reason")
                                   : std::string();
    if (reason == "content_filter") return StopReason::Refusal;
    return StopReason::MaxTokens;
  }
  if (saw_refusal) return StopReason::Refusal;
  if (saw_function_call) return StopReason::ToolUse;
  return StopReason::EndTurn;
}

ResponseStatus statusFor(StopReason stop) {
  switch (stop) {
    case StopReason::MaxTokens:
    case StopReason::ContextWindowExceeded: return {"incomplete", "max_output_tokens"};
    case StopReason::Refusal: return {"incomplete", "content_filter"};
    case StopReason::Error: return {"failed", ""};
    case StopReason::EndTurn:
    case StopReason::StopSequence:
    case StopReason::ToolUse:
    case StopReason::PauseTurn: break;
  }
  return {"completed", ""};
}

int httpStatusForCode(std::string_view code) {
  if (code == "rate_limit_exceeded" || code == "insufficient_quota" || code == "rate_limit_error") return 429;
  if (code == "server_is_overloaded" || code == "slow_down" || code == "service_unavailable_error") return 503;
  if (code == "server_error") return 500;
  if (code == "context_length_exceeded" || code == "invalid_prompt" || code == "invalid_request_error") return 400;
  return 502;
}

}  // namespace sluice::wire::openai_responses
