// Gemini is a provider wire only: no client speaks it to the gateway. Its client-side functions
// exist to complete the codec interface: decodeRequest refuses with 400 "unsupported_wire",
// encodeResponse returns "" and makeStreamEncoder returns nullptr.

#include "server/wire/gemini/codec.h"

namespace sluice::wire::gemini {

std::expected<Request, ApiError> decodeRequest(std::string_view /*body*/) {
  return std::unexpected(ApiError::make(400, error_keys::kUnsupportedWire, "gemini is not a client wire"));
}

std::string encodeResponse(const Response& /*response*/, const ResponseContext& /*context*/) { return {}; }

std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& /*context*/) { return nullptr; }

}  // namespace sluice::wire::gemini
