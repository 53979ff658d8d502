#include "server/wire/codec.h"

#include "server/wire/anthropic/codec.h"
#include "server/wire/bedrock/converse_codec.h"
#include "server/wire/gemini/codec.h"
#include "server/wire/openai_chat/codec.h"
#include "server/wire/openai_responses/codec.h"

namespace sluice::wire {

using catalog::Wire;

#define SLUICE_WIRE_DISPATCH(wire, call)            \
  switch (wire) {                                   \
    case Wire::Anthropic: return anthropic::call;   \
    case Wire::OpenAIChat: return openai_chat::call; \
    case Wire::OpenAIResponses: return openai_responses::call; \
    case Wire::Gemini: return gemini::call;         \
    case Wire::BedrockConverse: return converse::call; \
    case Wire::Mcp: break; /* not a model wire */ \
  }

std::expected<Request, ApiError> decodeRequest(Wire wire, std::string_view body) {
  SLUICE_WIRE_DISPATCH(wire, decodeRequest(body))
  return std::unexpected(ApiError::invalidRequest("unknown wire"));
}

std::expected<std::string, ApiError> encodeRequest(Wire wire, const Request& request, const EncodeOptions& options) {
  SLUICE_WIRE_DISPATCH(wire, encodeRequest(request, options))
  return std::unexpected(ApiError::invalidRequest("unknown wire"));
}

std::expected<Response, ApiError> decodeResponse(Wire wire, std::string_view body) {
  SLUICE_WIRE_DISPATCH(wire, decodeResponse(body))
  return std::unexpected(ApiError::upstreamInvalidResponse("unknown wire"));
}

std::string encodeResponse(Wire wire, const Response& response, const ResponseContext& context) {
  SLUICE_WIRE_DISPATCH(wire, encodeResponse(response, context))
  return {};
}

std::unique_ptr<StreamDecoder> makeStreamDecoder(Wire wire) {
  SLUICE_WIRE_DISPATCH(wire, makeStreamDecoder())
  return nullptr;
}

std::unique_ptr<StreamEncoder> makeStreamEncoder(Wire wire, const ResponseContext& context) {
  SLUICE_WIRE_DISPATCH(wire, makeStreamEncoder(context))
  return nullptr;
}

ApiError decodeError(Wire wire, int status, std::string_view body, std::string_view retry_after_header,
                     SystemTime now) {
  std::optional<int> retry_after_seconds;
  if (const auto wait = parseRetryAfter(retry_after_header, now)) retry_after_seconds = static_cast<int>(wait->count());
  SLUICE_WIRE_DISPATCH(wire, decodeError(status, body, retry_after_seconds))
  ApiError error = ApiError::make(status, error_keys::kUpstreamError, std::string(body));
  error.retry_after_seconds = retry_after_seconds;
  return error;
}

#undef SLUICE_WIRE_DISPATCH

}  // namespace sluice::wire
