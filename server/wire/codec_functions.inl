// The functions every codec defines in its own namespace (sluice::wire::<codec>), declared once:
// each codec's codec.h includes this file inside that namespace, and codec.cc dispatches on the
// wire to them. The contracts are codec.h's (the same functions with a catalog::Wire first) and
// each codec's codec.h. No #pragma once: it is meant to be included once per codec namespace.
// decodeError takes the Retry-After already read (codec.h reads the header with parseRetryAfter).

std::expected<Request, ApiError> decodeRequest(std::string_view body);
std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options);
std::expected<Response, ApiError> decodeResponse(std::string_view body);
std::string encodeResponse(const Response& response, const ResponseContext& context);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& context);
ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds);
