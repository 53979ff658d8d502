// IR Request -> the body of POST /v1/messages on an Anthropic provider.

#include <algorithm>

#include "server/wire/anthropic/codec.h"
#include "server/wire/anthropic/content_block.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::anthropic {

namespace {

constexpr int64_t kMinThinkingBudget = 1024;  // the API refuses a smaller budget_tokens

// Anthropic rejects empty text blocks ("text content blocks must be non-empty").
bool isEmptyText(const ContentBlock& block) {
  return block.type == ContentBlock::Type::Text && block.text.empty();
}

Json encodeSystem(const std::vector<ContentBlock>& system) {
  std::vector<const ContentBlock*> kept;
  for (const ContentBlock& block : system) {
    if (block.type == ContentBlock::Type::Text && !block.text.empty()) kept.push_back(&block);
  }
  if (kept.empty()) return nullptr;
  if (kept.size() == 1 && kept[0]->cache_control.is_null()) return kept[0]->text;
  Json blocks = Json::array();
  for (const ContentBlock* block : kept) {
    Json text{{"type", "text"}, {"text", block->text}};
    if (!block->cache_control.is_null()) text["cache_control"] = block->cache_control;
    blocks.push_back(std::move(text));
  }
  return blocks;
}

// Consecutive same-role turns are merged (the IR may hold them: Chat sends one tool message per
// result); in a user turn the tool_result blocks come first, as the API requires, so parallel
// results share one user message. Blocks this provider cannot be sent are dropped, and a turn
// left empty disappears.
Json encodeMessages(const std::vector<Message>& messages) {
  struct Turn {
    Role role;
    std::vector<Json> blocks;
  };
  std::vector<Turn> turns;
  for (const Message& message : messages) {
    std::vector<Json> blocks;
    for (const ContentBlock& block : message.content) {
      if (isEmptyText(block)) continue;
      if (auto encoded = encodeBlock(block, Audience::Provider)) blocks.push_back(std::move(*encoded));
    }
    if (blocks.empty()) continue;
    if (turns.empty() || turns.back().role != message.role) turns.push_back(Turn{message.role, {}});
    for (Json& block : blocks) turns.back().blocks.push_back(std::move(block));
  }
  Json out = Json::array();
  for (Turn& turn : turns) {
    if (turn.role == Role::User) {
      std::stable_partition(turn.blocks.begin(), turn.blocks.end(),
                            [](const Json& block) { return stringMember(block, "type") == "tool_result"; });
    }
    Json content = Json::array();
    for (Json& block : turn.blocks) content.push_back(std::move(block));
    out.push_back(Json{{"role", turn.role == Role::User ? "user" : "assistant"}, {"content", std::move(content)}});
  }
  return out;
}

Json encodeTools(const std::vector<Tool>& tools) {
  Json out = Json::array();
  for (const Tool& tool : tools) {
    if (!tool.raw.is_null()) {
      // NOTE: another wire's hosted tool (OpenAI web_search, Gemini googleSearch) has no
      // Anthropic equivalent we can build faithfully; it is dropped.
      if (tool.raw_wire == catalog::Wire::Anthropic && tool.raw.is_object()) out.push_back(tool.raw);
      continue;
    }
    Json entry{{"name", tool.name}};
    if (!tool.description.empty()) entry["description"] = tool.description;
    entry["input_schema"] = tool.input_schema.is_object() && !tool.input_schema.empty()
                                ? tool.input_schema
                                : Json{{"type", "object"}};  // the API requires an object schema
    // NOTE: only strict:true is sent; models without structured outputs reject the key, and
    // false is the default anyway.
    if (tool.strict.value_or(false)) entry["strict"] = true;
    if (!tool.cache_control.is_null()) entry["cache_control"] = tool.cache_control;
    out.push_back(std::move(entry));
  }
  return out;
}

Json encodeToolChoice(const Request& request) {
  const bool disable_parallel =
      (request.tool_choice && request.tool_choice->disable_parallel) || request.parallel_tool_calls == false;
  if (!request.tool_choice && !disable_parallel) return nullptr;
  const ToolChoice choice = request.tool_choice.value_or(ToolChoice{});
  Json out = Json::object();
  switch (choice.mode) {
    case ToolChoice::Mode::Auto: out["type"] = "auto"; break;
    case ToolChoice::Mode::Any: out["type"] = "any"; break;
    case ToolChoice::Mode::None: out["type"] = "none"; break;
    case ToolChoice::Mode::Tool:
      out["type"] = "tool";
      out["name"] = choice.name;
      break;
  }
  if (disable_parallel && choice.mode != ToolChoice::Mode::None) out["disable_parallel_tool_use"] = true;
  return out;
}

// OpenAI-style effort as an Anthropic thinking budget ("none" turns thinking off).
std::optional<int64_t> budgetForEffort(const std::string& effort) {
  if (effort == "none") return std::nullopt;
  if (effort == "minimal") return 1024;
  if (effort == "low") return 2048;
  if (effort == "high") return 16384;
  if (effort == "xhigh" || effort == "max") return 32768;
  return 8192;  // "medium" and levels added later
}

// With thinking on, the API requires the last assistant turn that called tools to start with
// its thinking block. History from another provider (or a client that cannot keep thinking
// blocks) has none, and the call would be refused.
bool historyAllowsThinking(const Json& messages) {
  for (auto turn = messages.rbegin(); turn != messages.rend(); ++turn) {
    const Json* content = member(*turn, "content");
    if (stringMember(*turn, "role") != "assistant" || content == nullptr || content->empty()) continue;
    bool calls_tools = false;
    for (const Json& block : *content) calls_tools = calls_tools || stringMember(block, "type") == "tool_use";
    if (!calls_tools) return true;
    const std::string first = stringMember(content->front(), "type");
    return first == "thinking" || first == "redacted_thinking";
  }
  return true;
}

// The `thinking` object (null: send none). `thinking_on` tells the caller that sampling
// parameters thinking forbids must be left out.
Json encodeThinking(const Request& request, int64_t max_tokens, bool forced_tool, bool history_allows,
                    bool& thinking_on) {
  thinking_on = false;
  if (!request.reasoning) return nullptr;
  const Reasoning& reasoning = *request.reasoning;
  if (!reasoning.enabled || (!reasoning.budget_tokens && reasoning.effort == "none")) {
    return Json{{"type", "disabled"}};
  }
  // NOTE: thinking cannot be combined with a forced tool (any / tool); the caller's explicit
  // tool choice wins and thinking is left out. Likewise when the history lacks the thinking
  // block the API would demand: answering without thinking beats a refused request.
  if (forced_tool || !history_allows) return nullptr;
  std::optional<int64_t> budget = reasoning.budget_tokens;
  if (!budget && !reasoning.effort.empty()) budget = budgetForEffort(reasoning.effort);
  if (!budget) {
    thinking_on = true;
    return Json{{"type", "adaptive"}};
  }
  int64_t tokens = std::max(*budget, kMinThinkingBudget);
  if (tokens >= max_tokens) tokens = max_tokens - 1;  // budget_tokens must stay below max_tokens
  // NOTE: with max_tokens too small for the minimum budget there is no room to think.
  if (tokens < kMinThinkingBudget) return nullptr;
  thinking_on = true;
  return Json{{"type", "enabled"}, {"budget_tokens", tokens}};
}

}  // namespace

std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options) {
  Json out = Json::object();
  out["model"] = options.upstream_model.empty() ? request.model : options.upstream_model;
  int64_t max_tokens = request.max_tokens.value_or(options.default_max_tokens);
  if (options.max_output && max_tokens > *options.max_output) max_tokens = *options.max_output;
  max_tokens = std::max<int64_t>(max_tokens, 1);
  out["max_tokens"] = max_tokens;

  if (Json system = encodeSystem(request.system); !system.is_null()) out["system"] = std::move(system);
  Json messages = encodeMessages(request.messages);
  if (messages.empty()) {
    return std::unexpected(ApiError::unsupportedField("the request has no message an Anthropic model can be sent", "messages"));
  }
  out["messages"] = std::move(messages);

  Json tools = encodeTools(request.tools);
  const bool has_tools = !tools.empty();
  if (has_tools) out["tools"] = std::move(tools);
  bool forced_tool = false;
  if (has_tools) {
    if (Json choice = encodeToolChoice(request); !choice.is_null()) {
      const std::string type = stringMember(choice, "type");
      forced_tool = type == "any" || type == "tool";
      out["tool_choice"] = std::move(choice);
    }
  }

  bool thinking_on = false;
  const bool history_allows = historyAllowsThinking(out["messages"]);
  if (Json thinking = encodeThinking(request, max_tokens, forced_tool, history_allows, thinking_on);
      !thinking.is_null()) {
    out["thinking"] = std::move(thinking);
  }
  // Thinking forbids a changed temperature or top_k and allows top_p only in [0.95, 1]; the
  // range of temperature is [0, 1] here (OpenAI's is [0, 2]).
  if (request.temperature && !thinking_on) out["temperature"] = std::clamp(*request.temperature, 0.0, 1.0);
  // NOTE: current models refuse temperature and top_p together; temperature is kept.
  if (request.top_p && !(request.temperature && !thinking_on)) {
    out["top_p"] = std::clamp(*request.top_p, thinking_on ? 0.95 : 0.0, 1.0);
  }
  if (request.top_k && !thinking_on) out["top_k"] = *request.top_k;
  if (!request.stop_sequences.empty()) out["stop_sequences"] = request.stop_sequences;
  if (request.stream) out["stream"] = true;
  if (request.user && !request.user->empty()) out["metadata"] = Json{{"user_id", *request.user}};
  // NOTE: json_object has no Anthropic form (the prompt still asks for JSON); it is dropped.
  if (request.response_format && request.response_format->kind == ResponseFormat::Kind::JsonSchema &&
      request.response_format->schema.is_object()) {
    out["output_config"] = Json{{"format", {{"type", "json_schema"}, {"schema", request.response_format->schema}}}};
  }
  return dumpJsonText(out);
}

}  // namespace sluice::wire::anthropic
