#pragma once
// The openai_responses wire's codec. See server/wire/codec.h for the contract each function keeps.

#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include "server/wire/codec.h"

namespace sluice::wire::openai_responses {

std::expected<Request, ApiError> decodeRequest(std::string_view body);
std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options);
std::expected<Response, ApiError> decodeResponse(std::string_view body);
std::string encodeResponse(const Response& response, const ResponseContext& context);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context);
ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds);

}  // namespace sluice::wire::openai_responses
