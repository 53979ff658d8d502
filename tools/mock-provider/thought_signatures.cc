#include "tools/mock-provider/thought_signatures.h"

#include <nlohmann/json.hpp>

#include "tools/mock-provider/tokens.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

const Json* field(const Json& object, const char* camel, const char* snake) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(camel); it != object.end()) return &*it;
  if (auto it = object.find(snake); it != object.end()) return &*it;
  return nullptr;
}

std::string stringField(const Json& object, const char* camel, const char* snake) {
  const Json* value = field(object, camel, snake);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// The same signature in either base64 alphabet, without padding.
std::string normalized(std::string signature) {
  for (char& c : signature) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (!signature.empty() && signature.back() == '=') signature.pop_back();
  return signature;
}

std::vector<Json> chunksOf(std::string_view answer) {
  std::vector<Json> chunks;
  const Json whole = Json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (whole.is_object()) {
    chunks.push_back(whole);
    return chunks;
  }
  if (whole.is_array()) {
    for (const Json& chunk : whole) chunks.push_back(chunk);
    return chunks;
  }
  size_t start = 0;
  while (start < answer.size()) {
    size_t end = answer.find('\n', start);
    if (end == std::string_view::npos) end = answer.size();
    std::string_view line = answer.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with("data:")) continue;
    line.remove_prefix(5);
    Json chunk = Json::parse(line, nullptr, false);
    if (chunk.is_object()) chunks.push_back(std::move(chunk));
  }
  return chunks;
}

ErrorSpec invalidArgument(std::string message) {
  ErrorSpec error = errorForStatus(Wire::Gemini, 400, Script{});
  error.message = std::move(message);
  return error;
}

}  // namespace

std::vector<SignedCall> signedCalls(std::string_view answer) {
  std::vector<SignedCall> calls;
  int position = -1;
  bool open_call = false;  // the last call came in pieces and may still get its signature
  for (const Json& chunk : chunksOf(answer)) {
    const Json* candidates = field(chunk, "candidates", "candidates");
    if (candidates == nullptr || !candidates->is_array() || candidates->empty()) continue;
    const Json* content = field((*candidates)[0], "content", "content");
    const Json* parts = content != nullptr ? field(*content, "parts", "parts") : nullptr;
    if (parts == nullptr || !parts->is_array()) continue;
    for (const Json& part : *parts) {
      const Json* call = field(part, "functionCall", "function_call");
      const std::string signature = stringField(part, "thoughtSignature", "thought_signature");
      if (call == nullptr) {
        open_call = false;
        continue;
      }
      const std::string name = stringField(*call, "name", "name");
      if (!name.empty()) {
        ++position;
        calls.push_back({name, position, signature});
        open_call = true;
      } else if (open_call && !signature.empty() && calls.back().signature.empty()) {
        calls.back().signature = signature;  // a continuation piece of the open call
      }
    }
  }
  std::erase_if(calls, [](const SignedCall& call) { return call.signature.empty(); });
  return calls;
}

std::string mintCallSignature(std::string_view model, std::uint64_t seq, int position, std::string_view name) {
  return base64Encode("sluice-mock-thought-signature/" + std::string(model) + "/" + std::to_string(seq) + "/" +
                      std::to_string(position) + "/" + std::string(name));
}

void ThoughtSignatures::remember(const std::vector<SignedCall>& calls) {
  const std::lock_guard lock(mutex_);
  for (const SignedCall& call : calls) issued_[{call.name, call.position}].insert(normalized(call.signature));
}

std::optional<ErrorSpec> ThoughtSignatures::check(std::string_view request_body) const {
  const Json body = Json::parse(request_body, nullptr, false);
  const Json* contents = field(body, "contents", "contents");
  if (contents == nullptr || !contents->is_array()) return std::nullopt;
  const std::lock_guard lock(mutex_);
  if (issued_.empty()) return std::nullopt;
  for (size_t c = 0; c < contents->size(); ++c) {
    const Json& turn = (*contents)[c];
    if (stringField(turn, "role", "role") != "model") continue;
    const Json* parts = field(turn, "parts", "parts");
    if (parts == nullptr || !parts->is_array()) continue;
    int position = -1;
    for (const Json& part : *parts) {
      const Json* call = field(part, "functionCall", "function_call");
      if (call == nullptr) continue;
      ++position;
      const std::string name = stringField(*call, "name", "name");
      const auto issued = issued_.find({name, position});
      if (issued == issued_.end()) continue;
      const std::string signature = stringField(part, "thoughtSignature", "thought_signature");
      if (issued->second.contains(normalized(signature))) continue;
      if (signature.empty() || signature == "skip_thought_signature_validator") {
        return invalidArgument(
            "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
            "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
            "function call `default_api:" + name + "` , position " + std::to_string(c + 1) +
            ". Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.");
      }
      return invalidArgument("Corrupted thought signature.");
    }
  }
  return std::nullopt;
}

}  // namespace sluice::mock
