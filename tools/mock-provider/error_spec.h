#pragma once
// Provider-shaped errors: the defaults per wire and status (WIRE_FORMATS.md §1.4, §2.5, §4.5, §5)
// and the JSON bodies each wire answers with. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "tools/mock-provider/route.h"
#include "tools/mock-provider/script.h"

namespace sluice::mock {

struct ErrorSpec {
  int status = 400;
  std::string type;                   // Anthropic error.type / OpenAI error.type / Gemini error.status
  std::string message;
  std::optional<std::string> code;    // OpenAI error.code (null when absent)
  std::optional<std::string> param;   // OpenAI error.param (null when absent)
  std::optional<std::string> reason;  // Gemini ErrorInfo reason, e.g. "API_KEY_INVALID"
  std::optional<std::string> retry_delay;  // Gemini RetryInfo.retryDelay, e.g. "3s"
};

// The error a `status` script produces on `wire`, with the script's type/message/code overrides
// and, for Gemini, a RetryInfo detail when the script sets retry_after.
ErrorSpec errorForStatus(Wire wire, int status, const Script& script);

// The wire's usual mid-stream failure (Anthropic overloaded_error, OpenAI server_error,
// Gemini 503 UNAVAILABLE), with the script's overrides.
ErrorSpec inStreamErrorFor(Wire wire, const Script& script);

// Anthropic {"type":"error","error":{type,message},"request_id"},
// OpenAI {"error":{message,type,param,code}}, Gemini {"error":{code,message,status[,details]}}.
std::string renderErrorBody(Wire wire, const ErrorSpec& error, std::string_view request_id);

// The HTTP reason phrase for a status, including the non-standard 529 "Overloaded".
std::string reasonPhrase(int status);

}  // namespace sluice::mock
