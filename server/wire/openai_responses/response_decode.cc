// A Responses provider's non-streamed body -> neutral Response.

#include <string>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/items.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_responses/stop_reason.h"
#include "server/wire/openai_responses/usage_json.h"

namespace sluice::wire::openai_responses {

namespace {

ApiError invalidResponse(std::string message) {
  return ApiError::upstreamInvalidResponse("the provider's answer is not a valid response: " + message);
}

// A 200 whose response says it failed: the provider's own code and message, as an error.
ApiError failedResponse(const Json& error) {
  std::string code = stringMember(error, "code", stringMember(error, "type"));
  std::string message = stringMember(error, "message", "the provider reported a failed response");
  const int status = httpStatusForCode(code);
  return ApiError::make(status, code.empty() ? error_keys::kUpstreamError : code, std::move(message));
}

}  // namespace

std::expected<Response, ApiError> decodeResponse(std::string_view body) {
  const Json parsed = parseBounded(body);
  if (parsed.is_discarded() || !parsed.is_object()) return std::unexpected(invalidResponse("not a JSON object"));
  const std::string status = stringMember(parsed, "status");
  const Json* error = member(parsed, "error");
  if (status == "failed" || (error != nullptr && error->is_object() && member(parsed, "output") == nullptr)) {
    return std::unexpected(failedResponse(error != nullptr ? *error : Json::object()));
  }
  const Json* output = member(parsed, "output");
  if (output == nullptr || !output->is_array()) return std::unexpected(invalidResponse("no output array"));

  Response response;
  response.id = stringMember(parsed, "id");
  response.model = stringMember(parsed, "model");
  bool saw_function_call = false;
  bool saw_refusal = false;
  for (const Json& item : *output) {
    if (!item.is_object()) return std::unexpected(invalidResponse("an output item is not an object"));
    const std::string type = stringMember(item, "type");
    if (type == "message") {
      const Json* content = member(item, "content");
      if (content == nullptr || !content->is_array()) continue;
      for (const Json& part : *content) {
        const std::string part_type = stringMember(part, "type");
        if (part_type == "output_text") {
          response.content.push_back(ContentBlock::ofText(stringMember(part, "text")));
        } else if (part_type == "refusal") {
          response.content.push_back(ContentBlock::ofText(stringMember(part, "refusal")));
          saw_refusal = true;
        }
      }
    } else if (type == "function_call") {
      ContentBlock block;
      block.type = ContentBlock::Type::ToolUse;
      block.tool_id = stringMember(item, "call_id");
      block.tool_name = stringMember(item, "name");
      block.tool_namespace = stringMember(item, "namespace");
      auto arguments = parseArguments(item);
      if (!arguments) {
        // A call cut off by max_output_tokens carries half its JSON; it must not fail the answer.
        if (status != "incomplete") return std::unexpected(invalidResponse("function_call arguments are not a JSON object"));
        arguments = Json::object();
      }
      block.tool_input = std::move(*arguments);
      response.content.push_back(std::move(block));
      saw_function_call = true;
    } else if (type == "reasoning") {
      response.content.push_back(thinkingFromReasoning(item));
    } else {
      ContentBlock block;
      block.type = ContentBlock::Type::Opaque;
      block.raw = item;
      block.raw_wire = catalog::Wire::OpenAIResponses;
      response.content.push_back(std::move(block));
    }
  }
  response.stop_reason = stopReasonFor(parsed, saw_function_call, saw_refusal);
  if (const Json* usage = member(parsed, "usage")) response.usage_reported = readUsage(*usage, response.usage);
  return response;
}

}  // namespace sluice::wire::openai_responses
