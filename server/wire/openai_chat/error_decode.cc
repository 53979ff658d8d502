// A provider's error answer (non-2xx) -> neutral ApiError.
//
// Body shapes accepted: OpenAI's {"error":{"message","type","param","code"}}; {"error":"text"}
// and {"message":...} as some compatible servers send; anything else (HTML from a proxy, empty)
// keeps the status with the wire's type for it as key and the text as message.
#include "server/wire/openai_chat/codec.h"

#include "server/text/utf8.h"

#include "server/wire/openai_chat/errors.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_chat {

namespace {

constexpr size_t kMaxMessageBytes = 2000;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Up to kMaxMessageBytes of a non-JSON body as valid UTF-8 (the message is JSON-rendered later).
std::string messageFromText(std::string_view text) {
  return text::repairUtf8(trim(text).substr(0, kMaxMessageBytes));
}

}  // namespace

ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds) {
  ApiError error;
  const Json parsed = parseBounded(body);
  const Json* inner = member(parsed, "error");
  if (inner != nullptr && inner->is_object()) {
    error = errorFromObject(*inner, status);
  } else {
    error.status = status;
    error.key = errorTypeFor(catalog::Wire::OpenAIChat, status);
    if (inner != nullptr && inner->is_string()) {
      error.message = inner->get<std::string>();
    } else if (auto message = optionalString(parsed, "message")) {
      error.message = std::move(*message);
    } else {
      error.message = messageFromText(body);
    }
    if (error.message.empty()) error.message = "the provider answered HTTP " + std::to_string(status);
  }
  error.retry_after_seconds = retry_after_seconds;
  return error;
}

}  // namespace sluice::wire::openai_chat
