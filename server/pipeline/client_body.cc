#include "server/pipeline/client_body.h"

#include <array>
#include <vector>

#include "server/net/fiber.h"
#include "server/pipeline/request_protection.h"
#include "server/wire/codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/tool_call_id.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

using nlohmann::ordered_json;

constexpr std::array<std::string_view, 7> kHeadKeys = {"model",      "stream",           "stream_options",
                                                       "max_tokens", "max_completion_tokens", "max_output_tokens",
                                                       "store"};

// Work over a whole body runs on a compute thread when the body is large (as masking and decoding
// do): walking or rewriting megabytes would otherwise hold the event loop, /healthz included.
template <class Work>
auto offLoopWhenLarge(size_t bytes, Work&& work) -> decltype(work()) {
  return bytes > RequestProtection::kInlineMaskBytes ? net::fiber::compute(work) : work();
}

}  // namespace

ClientBody::ClientBody(catalog::Wire client_wire, std::string raw) : client_wire_(client_wire), raw_(std::move(raw)) {}

std::expected<void, wire::ApiError> ClientBody::inspect() {
  const auto read = offLoopWhenLarge(raw_.size(), [&]() -> std::expected<void, wire::ApiError> {
    head_ = wire::scanTopLevelMembers(raw_, kHeadKeys);
    if (head_.walked) return {};
    // Malformed, nested too deep for the walk, or a key written with escapes: the parse decides,
    // and serves the members. Nesting past the bound is refused before any parse.
    auto whole = wire::parseRequestObject(raw_);
    if (!whole) return std::unexpected(whole.error());
    full_ = std::move(*whole);
    // The parse kept the last of a repeated key; the provider may keep the first.
    head_.repeated = wire::repeatedTopLevelKey(raw_, kHeadKeys);
    return {};
  });
  if (!read) return std::unexpected(read.error());
  // A member read here but forwarded twice would be authorised, priced and clamped as one value
  // and served as the other by a provider that keeps the first duplicate.
  if (head_.repeated) {
    const std::string key(kHeadKeys[*head_.repeated]);
    return std::unexpected(
        wire::ApiError::invalidRequest("request body names '" + key + "' more than once", key));
  }
  if (const auto model = member(kModel)) {
    if (!model->is_string()) return std::unexpected(wire::ApiError::invalidRequest("'model' must be a string", "model"));
    requested_model_ = model->get<std::string>();
  }
  const auto stream = member(kStream);
  stream_ = stream && stream->is_boolean() && stream->get<bool>();
  const auto store = member(kStore);
  store_false_ = store && store->is_boolean() && !store->get<bool>();
  if (client_wire_ == catalog::Wire::OpenAIChat) {
    const auto options = member(kStreamOptions);
    client_asked_usage_ = options && options->is_object() && options->contains("include_usage") &&
                          (*options)["include_usage"].is_boolean() && (*options)["include_usage"].get<bool>();
  }
  switch (client_wire_) {
    case catalog::Wire::Anthropic: max_tokens_key_ = kMaxTokens; break;
    case catalog::Wire::OpenAIChat: max_tokens_key_ = member(kMaxCompletionTokens) ? kMaxCompletionTokens : kMaxTokens; break;
    case catalog::Wire::OpenAIResponses:
    case catalog::Wire::Gemini:
    case catalog::Wire::Mcp:
    case catalog::Wire::BedrockConverse: max_tokens_key_ = kMaxOutputTokens; break;  // NOTE: never client wires
  }
  return {};
}

std::optional<int64_t> ClientBody::maxTokens() const {
  const auto value = member(max_tokens_key_);
  if (!value || !value->is_number_integer()) return std::nullopt;
  return value->get<int64_t>();
}

// From the scan, or from the parsed body when the scan could not walk it. nullopt when absent.
// (A JSON null is a value here, as `contains` saw it.)
std::optional<ordered_json> ClientBody::member(HeadKey key) const {
  if (!head_.walked) {
    // Neither walked nor parsed: inspect() refused the body (too deep, not JSON); it has no members.
    if (!full_ || !full_->is_object()) return std::nullopt;
    const auto found = full_->find(kHeadKeys[key]);
    if (found == full_->end()) return std::nullopt;
    return *found;
  }
  const auto& text = head_.values[key];
  if (!text) return std::nullopt;
  return wire::parseJsonText(*text);  // one member's value, already walked
}

ordered_json& ClientBody::parsed() {
  if (!full_) full_ = wire::parseJsonText(raw_);
  return *full_;
}

std::optional<std::string> ClientBody::stringMember(std::string_view name) {
  const ordered_json& body = parsed();
  if (!body.is_object()) return std::nullopt;
  const auto it = body.find(name);
  if (it == body.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::expected<const wire::Request*, wire::ApiError> ClientBody::ir() {
  if (ir_) return &*ir_;
  if (decode_error_) return std::unexpected(*decode_error_);
  // A large body is decoded on a compute thread while the request's fiber waits, as it is masked
  // (RequestProtection): megabytes of JSON would otherwise hold the event loop, /healthz included.
  auto decoded = offLoopWhenLarge(raw_.size(), [&] { return wire::decodeRequest(client_wire_, raw_); });
  if (!decoded) {
    decode_error_ = decoded.error();
    return std::unexpected(*decode_error_);
  }
  ir_ = std::move(*decoded);
  return &*ir_;
}

std::expected<std::string, wire::ApiError> ClientBody::encodedFor(const wire::Request& request,
                                                                  const dispatch::Attempt& attempt,
                                                                  const dispatch::Plan& plan) {
  wire::EncodeOptions options;
  options.upstream_model = attempt.deployment->upstream_model;
  // Each attempt's own model: a chain's attempts serve different models.
  const catalog::Model* model = attempt.model ? attempt.model : plan.model;
  options.max_output = model->limits.max_output;
  options.default_max_tokens = model->limits.max_output.value_or(4096);
  return wire::encodeRequest(attempt.endpoint->wire, request, options);
}

std::expected<std::string, wire::ApiError> ClientBody::bodyFor(const dispatch::Attempt& attempt,
                                                               const dispatch::Plan& plan) {
  const catalog::Wire provider_wire = attempt.endpoint->wire;
  if (provider_wire != client_wire_) {
    auto request = ir();
    if (!request) return std::unexpected(request.error());
    return encodedFor(**request, attempt, plan);
  }
  // Each attempt's own ceiling: a chain's attempts serve different models.
  const bool clamp = attempt.max_tokens_clamped && attempt.max_tokens.has_value();
  // Without it a Chat stream carries no usage at all, and the request could not be accounted;
  // the relay takes the usage chunk out again before the client sees it.
  const bool add_usage = stream_ && provider_wire == catalog::Wire::OpenAIChat && !client_asked_usage_;
  // Tool call ids that carry a Gemini signature (openai_chat/tool_call_id.h) go to a Chat
  // provider as their plain ids; the substring test keeps every other body unparsed.
  const bool plain_ids = client_wire_ == catalog::Wire::OpenAIChat && raw_.find(wire::openai_chat::kGeminiIdPrefix) != std::string::npos;
  // A large body is copied or rewritten on a compute thread (see offLoopWhenLarge).
  return offLoopWhenLarge(raw_.size(), [&]() -> std::expected<std::string, wire::ApiError> {
    // Nothing to change: the client's bytes go upstream as they came (no re-serialisation).
    if (!clamp && !add_usage && !plain_ids && !requested_model_.empty() &&
        requested_model_ == attempt.deployment->upstream_model) {
      return raw_;
    }
    // Only the changed members are rewritten in the client's text (a 200 KB conversation is not
    // parsed and re-serialised for a model name); stream_options the client wrote itself keeps its
    // other members through the parse below.
    if (head_.walked && !plain_ids && !(add_usage && head_.values[kStreamOptions])) {
      std::vector<wire::MemberEdit> edits;
      edits.push_back({"model", ordered_json(attempt.deployment->upstream_model).dump()});
      if (clamp) edits.push_back({kHeadKeys[max_tokens_key_], std::to_string(*attempt.max_tokens)});
      if (add_usage) edits.push_back({"stream_options", R"({"include_usage":true})"});
      if (auto edited = wire::editTopLevelMembers(raw_, head_, kHeadKeys, edits)) return std::move(*edited);
    }
    ordered_json& body = parsed();
    if (!body.is_object()) return std::unexpected(wire::ApiError::invalidJson());
    if (plain_ids) {
      if (auto stripped = wire::openai_chat::stripToolCallSignatures(body); !stripped) return std::unexpected(stripped.error());
    }
    body["model"] = attempt.deployment->upstream_model;
    if (clamp) body[std::string(kHeadKeys[max_tokens_key_])] = *attempt.max_tokens;
    if (add_usage) {
      auto& options = body["stream_options"];
      if (!options.is_object()) options = ordered_json::object();
      options["include_usage"] = true;
    }
    return wire::dumpJsonText(body);
  });
}

}  // namespace sluice::pipeline
