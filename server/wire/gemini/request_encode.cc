// encodeRequest: neutral Request -> generateContent body (camelCase keys). The model and stream
// mode travel in the URL (server/wire/endpoint.h), not in the body.
//
// Dropped because Gemini cannot express them (all optional): cache_control, tool `strict`,
// tool_choice.disable_parallel, parallel_tool_calls, user, other wires' hosted tools and
// thinking, reasoning effort and summary (no budget -> thinkingBudget -1, dynamic), the root
// "$schema" of JSON Schemas. max_tokens is clamped to EncodeOptions.max_output and omitted when
// absent (Gemini does not require it); temperature is clamped to [0, 2].

#include <algorithm>
#include <string>
#include <utility>

#include "server/wire/gemini/codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/gemini/request_contents.h"

namespace sluice::wire::gemini {
namespace {

using catalog::Wire;

constexpr size_t kMaxStopSequences = 5;
constexpr double kMinTemperature = 0.0;
constexpr double kMaxTemperature = 2.0;

// A JSON Schema as Gemini takes it: the root "$schema" dialect marker (zod and pydantic emit it)
// is dropped, since Gemini's schema fields have no member of that name.
Json geminiSchema(const Json& schema) {
  Json out = schema;
  if (out.is_object()) out.erase("$schema");
  return out;
}

Json systemInstruction(const std::vector<ContentBlock>& system) {
  Json parts = Json::array();
  for (const ContentBlock& block : system) {
    if (block.type == ContentBlock::Type::Text && !block.text.empty()) parts.push_back(Json{{"text", block.text}});
  }
  return parts.empty() ? Json() : Json{{"parts", std::move(parts)}};
}

Json tools(const std::vector<Tool>& tools) {
  Json declarations = Json::array();
  Json entries = Json::array();
  for (const Tool& tool : tools) {
    if (tool.raw_wire) {
      // A provider-hosted tool (googleSearch, codeExecution, ...) goes only to its own wire.
      if (*tool.raw_wire == Wire::Gemini && tool.raw.is_object() && !tool.raw.empty()) entries.push_back(tool.raw);
      continue;
    }
    Json declaration{{"name", tool.name}};
    if (!tool.description.empty()) declaration["description"] = tool.description;
    declaration["parametersJsonSchema"] = tool.input_schema.is_object() && !tool.input_schema.empty()
                                              ? geminiSchema(tool.input_schema)
                                              : Json{{"type", "object"}, {"properties", Json::object()}};
    declarations.push_back(std::move(declaration));
  }
  if (!declarations.empty()) {
    entries.insert(entries.begin(), Json{{"functionDeclarations", std::move(declarations)}});
  }
  return entries;
}

Json toolConfig(const ToolChoice& choice) {
  Json config;
  switch (choice.mode) {
    case ToolChoice::Mode::Auto: config = Json{{"mode", "AUTO"}}; break;
    case ToolChoice::Mode::Any: config = Json{{"mode", "ANY"}}; break;
    case ToolChoice::Mode::None: config = Json{{"mode", "NONE"}}; break;
    case ToolChoice::Mode::Tool:
      config = Json{{"mode", "ANY"}, {"allowedFunctionNames", Json::array({choice.name})}};
      break;
  }
  return Json{{"functionCallingConfig", std::move(config)}};
}

Json thinkingConfig(const Reasoning& reasoning) {
  if (!reasoning.enabled) return Json{{"thinkingBudget", 0}};
  // -1 lets the model pick its budget (dynamic thinking).
  return Json{{"thinkingBudget", reasoning.budget_tokens.value_or(-1)}, {"includeThoughts", true}};
}

std::expected<Json, ApiError> generationConfig(const Request& request, const EncodeOptions& options) {
  Json config = Json::object();
  if (request.max_tokens) {
    int64_t max_tokens = *request.max_tokens;
    if (options.max_output) max_tokens = std::min(max_tokens, *options.max_output);
    config["maxOutputTokens"] = max_tokens;
  }
  if (request.temperature) config["temperature"] = std::clamp(*request.temperature, kMinTemperature, kMaxTemperature);
  if (request.top_p) config["topP"] = *request.top_p;
  if (request.top_k) config["topK"] = *request.top_k;
  if (!request.stop_sequences.empty()) {
    if (request.stop_sequences.size() > kMaxStopSequences) {
      return std::unexpected(ApiError::unsupportedField("gemini accepts at most 5 stop sequences, got " +
                                                               std::to_string(request.stop_sequences.size()), "stop_sequences"));
    }
    config["stopSequences"] = request.stop_sequences;
  }
  if (request.response_format) {
    const ResponseFormat& format = *request.response_format;
    if (format.kind != ResponseFormat::Kind::Text) config["responseMimeType"] = "application/json";
    if (format.kind == ResponseFormat::Kind::JsonSchema && !format.schema.is_null()) {
      config["responseJsonSchema"] = geminiSchema(format.schema);
    }
  }
  if (request.reasoning) config["thinkingConfig"] = thinkingConfig(*request.reasoning);
  return config;
}

}  // namespace

std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options) {
  auto contents = encodeContents(request.messages);
  if (!contents) return std::unexpected(contents.error());
  auto generation = generationConfig(request, options);
  if (!generation) return std::unexpected(generation.error());

  Json body = Json::object();
  if (Json system = systemInstruction(request.system); !system.is_null()) body["systemInstruction"] = std::move(system);
  body["contents"] = std::move(*contents);
  if (Json entries = tools(request.tools); !entries.empty()) {
    const bool declares_functions = member(entries.front(), "functionDeclarations") != nullptr;
    body["tools"] = std::move(entries);
    if (request.tool_choice && declares_functions) body["toolConfig"] = toolConfig(*request.tool_choice);
  }
  if (!generation->empty()) body["generationConfig"] = std::move(*generation);
  return dumpJsonText(body);
}

}  // namespace sluice::wire::gemini
