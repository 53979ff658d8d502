#pragma once
// The gemini wire's codec. See server/wire/codec.h for the contract each function keeps.

#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include "server/wire/codec.h"

namespace sluice::wire::gemini {

std::expected<Request, ApiError> decodeRequest(std::string_view body);
std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options);
std::expected<Response, ApiError> decodeResponse(std::string_view body);
std::string encodeResponse(const Response& response, const ResponseContext& context);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context);
ApiError decodeError(int status, std::string_view body, std::string_view retry_after_header);

}  // namespace sluice::wire::gemini
