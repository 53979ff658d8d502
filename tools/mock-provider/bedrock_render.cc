#include "tools/mock-provider/bedrock_render.h"

#include <nlohmann/json.hpp>

#include "server/wire/bedrock/invoke.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

ErrorSpec validation(const std::string& what) {
  ErrorSpec error;
  error.status = 400;
  error.type = "ValidationException";
  error.message = "Malformed input request: #: " + what + ", please reformat your input and try again.";
  return error;
}

}  // namespace

ErrorSpec bedrockErrorFor(int status, const Script& script) {
  ErrorSpec error;
  error.status = status;
  switch (status) {
    case 429:
      error.type = "ThrottlingException";
      error.message = "Too many requests, please wait before trying again.";
      break;
    case 503:
      error.type = "ServiceUnavailableException";
      error.message = "Bedrock is unable to process your request.";
      break;
    case 403:
      error.type = "AccessDeniedException";
      error.message = "You don't have access to the model with the specified model ID.";
      break;
    case 404:
      error.type = "ResourceNotFoundException";
      error.message = "The provided model identifier is invalid.";
      break;
    case 408:
      error.type = "ModelTimeoutException";
      error.message = "Model has timed out in processing the request.";
      break;
    case 424:
      error.type = "ModelErrorException";
      error.message = "The model returned an error.";
      break;
    default:
      error.type = status < 500 ? "ValidationException" : "InternalServerException";
      error.message = status < 500 ? "The request was refused." : "The server encountered an internal error.";
  }
  if (script.error_type) error.type = *script.error_type;
  if (script.error_message) error.message = *script.error_message;
  return error;
}

std::string bedrockErrorBody(const ErrorSpec& error) { return Json{{"message", error.message}}.dump(); }

std::expected<std::string, ErrorSpec> messagesBodyOf(const std::string& body, const std::string& model_id, bool stream) {
  Json parsed = Json::parse(body, nullptr, false);
  if (!parsed.is_object()) return std::unexpected(validation("expected type: JSONObject, found: " + std::string(parsed.type_name())));
  for (const char* key : {"model", "stream"}) {
    if (parsed.contains(key)) return std::unexpected(validation(std::string("extraneous key [") + key + "] is not permitted"));
  }
  if (!parsed.contains("anthropic_version")) return std::unexpected(validation("required key [anthropic_version] not found"));
  if (parsed["anthropic_version"] != wire::bedrock::kAnthropicVersion) {
    return std::unexpected(validation("anthropic_version: " + parsed["anthropic_version"].dump() + " is not a valid enum value"));
  }
  parsed.erase("anthropic_version");
  parsed.erase("anthropic_beta");
  parsed["model"] = model_id;
  if (stream) parsed["stream"] = true;
  return parsed.dump();
}

std::vector<std::string> eventStreamFrames(const std::vector<SseEvent>& events, const Script& script) {
  std::vector<std::string> frames;
  for (const SseEvent& event : events) {
    if (event.name == "error") {
      const Json error = Json::parse(event.data, nullptr, false);
      std::string message = "The model stream failed.";
      if (error.is_object() && error.contains("error") && error["error"].is_object() &&
          error["error"].contains("message") && error["error"]["message"].is_string()) {
        message = error["error"]["message"].get<std::string>();
      }
      frames.push_back(wire::bedrock::exceptionFrame(script.error_type.value_or("modelStreamErrorException"), message));
      break;  // Bedrock ends the stream with its exception
    }
    frames.push_back(wire::bedrock::chunkFrame(event.data));
  }
  if (script.bad_frame_after && static_cast<size_t>(*script.bad_frame_after) < frames.size()) {
    std::string& frame = frames[static_cast<size_t>(*script.bad_frame_after)];
    frame.back() = char(frame.back() ^ 0x5a);  // the message CRC no longer matches
  }
  return frames;
}

}  // namespace sluice::mock
