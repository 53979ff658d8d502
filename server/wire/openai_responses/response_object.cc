#include "server/wire/openai_responses/response_object.h"

#include "server/wire/json_access.h"
#include "server/wire/openai_responses/mint_id.h"

namespace sluice::wire::openai_responses {

Json responseObject(const ResponseContext& context, const ResponseShape& shape) {
  Json object = Json::object();
  object["id"] = shape.id;
  object["object"] = "response";
  object["created_at"] = context.created;
  object["status"] = shape.status;
  object["background"] = false;
  object["error"] = shape.error;
  object["incomplete_details"] =
      shape.incomplete_reason.empty() ? Json(nullptr) : Json{{"reason", shape.incomplete_reason}};
  object["instructions"] = nullptr;
  object["max_output_tokens"] = nullptr;
  object["model"] = context.model;
  object["output"] = shape.output;
  object["parallel_tool_calls"] = true;
  object["previous_response_id"] = nullptr;
  object["reasoning"] = {{"effort", nullptr}, {"summary", nullptr}};
  object["store"] = false;
  object["temperature"] = nullptr;
  object["text"] = {{"format", {{"type", "text"}}}};
  object["tool_choice"] = "auto";
  object["tools"] = Json::array();
  object["top_p"] = nullptr;
  object["truncation"] = "disabled";
  object["usage"] = shape.usage;
  object["user"] = nullptr;
  object["metadata"] = Json::object();
  return object;
}

std::string responseIdFor(const ResponseContext& context, std::string_view fallback) {
  if (context.request_id.empty() && !fallback.empty()) return std::string(fallback);
  return mintId("resp", context.request_id);
}

}  // namespace sluice::wire::openai_responses
