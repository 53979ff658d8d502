#include "server/dispatch/optional_field.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::dispatch {

namespace {

using Json = nlohmann::ordered_json;

struct KnownField {
  std::string_view path;                // dotted path in the body
  std::vector<std::string_view> names;  // how an error may name it
  bool plain_word = false;              // an everyday word: must be named explicitly
  std::string_view rename_to = {};      // top-level renames only
};

// Fields a request can do without: dropping one changes a nicety (sampling, a hint, bookkeeping),
// never what is asked. Top-level ones cover the OpenAI chat/responses and Anthropic bodies;
// dotted ones the nested shapes (Responses reasoning/text, Anthropic output_config, Gemini
// generationConfig).
const std::vector<KnownField>& knownFields() {
  static const std::vector<KnownField> fields = {
      {"reasoning_effort", {"reasoning_effort"}},
      {"max_completion_tokens", {"max_completion_tokens"}, false, "max_tokens"},
      {"max_tokens", {"max_tokens"}, false, "max_completion_tokens"},
      {"parallel_tool_calls", {"parallel_tool_calls"}},
      {"seed", {"seed"}},
      {"service_tier", {"service_tier"}},
      {"stream_options", {"stream_options"}},
      {"temperature", {"temperature"}},
      {"top_p", {"top_p"}},
      {"top_k", {"top_k"}},
      {"logprobs", {"logprobs"}},
      {"top_logprobs", {"top_logprobs"}},
      {"frequency_penalty", {"frequency_penalty"}},
      {"presence_penalty", {"presence_penalty"}},
      {"logit_bias", {"logit_bias"}},
      {"prompt_cache_key", {"prompt_cache_key"}},
      {"safety_identifier", {"safety_identifier"}},
      {"verbosity", {"verbosity"}},
      {"user", {"user"}, true},
      {"metadata", {"metadata"}, true},
      {"store", {"store"}, true},
      {"prediction", {"prediction"}, true},
      {"truncation", {"truncation"}, true},
      {"reasoning.effort", {"reasoning.effort", "effort"}},
      {"reasoning.summary", {"reasoning.summary"}},
      {"text.verbosity", {"text.verbosity", "verbosity"}},
      {"output_config.effort", {"output_config.effort", "effort"}},
      {"generationConfig.seed", {"seed"}},
      {"generationConfig.topK", {"topK", "top_k"}},
      {"generationConfig.presencePenalty", {"presencePenalty", "presence_penalty"}},
      {"generationConfig.frequencyPenalty", {"frequencyPenalty", "frequency_penalty"}},
      {"generationConfig.responseLogprobs", {"responseLogprobs", "response_logprobs"}},
      {"generationConfig.logprobs", {"logprobs"}},
      {"generationConfig.thinkingConfig", {"thinkingConfig", "thinking_config"}},
  };
  return fields;
}

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// What the error says: its `param` and every string in it (message, details, field violations).
struct ErrorText {
  std::string param;
  std::string text;
};

void collectStrings(const Json& value, std::string& out, int depth) {
  if (depth > 8) return;
  if (value.is_string()) {
    out += value.get_ref<const std::string&>();
    out += '\n';
  } else if (value.is_structured()) {
    for (const auto& item : value) collectStrings(item, out, depth + 1);
  }
}

ErrorText readError(std::string_view error_body) {
  ErrorText error;
  const Json parsed = Json::parse(error_body, nullptr, false);
  if (parsed.is_discarded()) {
    error.text = std::string(error_body);
    return error;
  }
  const Json* holder = parsed.is_object() && parsed.contains("error") && parsed["error"].is_object() ? &parsed["error"]
                                                                                                      : &parsed;
  if (holder->is_object() && holder->contains("param") && (*holder)["param"].is_string()) {
    error.param = (*holder)["param"].get<std::string>();
  }
  collectStrings(parsed, error.text, 0);
  return error;
}

// The position of the first mention of `name` as a whole word in `text` (explicit ones only when
// `explicit_only`), or npos.
size_t firstMention(std::string_view text, std::string_view name, bool explicit_only) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    const char before = at > 0 ? text[at - 1] : '\0';
    const char after = end < text.size() ? text[end] : '\0';
    if (identifierChar(before) || identifierChar(after)) continue;
    if (!explicit_only) return at;
    const bool quoted = before == '\'' || before == '"' || before == '`';
    const bool labelled = after == ':' || (at >= 2 && text.substr(at - 2, 2) == ": ");
    if (quoted || labelled) return at;
  }
  return std::string_view::npos;
}

std::vector<std::string> splitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// The object holding the path's last key, when the body carries the path.
Json* parentOf(Json& body, const std::vector<std::string>& parts) {
  Json* node = &body;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->is_object() || !node->contains(parts[i])) return nullptr;
    node = &(*node)[parts[i]];
  }
  if (!node->is_object() || !node->contains(parts.back())) return nullptr;
  return node;
}

// Replaces `from` by `to` in place, keeping the key order of the object.
void renameKey(Json& object, const std::string& from, const std::string& to) {
  Json renamed = Json::object();
  for (auto it = object.begin(); it != object.end(); ++it) renamed[it.key() == from ? to : it.key()] = it.value();
  object = std::move(renamed);
}

}  // namespace

std::optional<FieldRetry> optionalFieldRetry(int status, std::string_view error_body, std::string_view request_body) {
  if (status != 400 && status != 422) return std::nullopt;
  Json body = Json::parse(request_body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) return std::nullopt;
  const ErrorText error = readError(error_body);

  const KnownField* chosen = nullptr;
  size_t chosen_at = std::numeric_limits<size_t>::max();
  for (const KnownField& field : knownFields()) {
    if (parentOf(body, splitPath(field.path)) == nullptr) continue;
    size_t at = std::string_view::npos;
    if (!error.param.empty() && (error.param == field.path ||
                                 std::find(field.names.begin(), field.names.end(), error.param) != field.names.end())) {
      at = 0;  // ahead of every mention in the text
    } else {
      for (std::string_view name : field.names) {
        const size_t mention = firstMention(error.text, name, field.plain_word);
        // +1: a mention never ties with `param`.
        if (mention != std::string_view::npos && (at == std::string_view::npos || mention + 1 < at)) at = mention + 1;
      }
    }
    if (at == std::string_view::npos) continue;
    // max_tokens is required on some wires: only renamed, and only when the target asks for it.
    if (field.path == "max_tokens" && firstMention(error.text, "max_completion_tokens", false) == std::string_view::npos) {
      continue;
    }
    if (at < chosen_at) {
      chosen = &field;
      chosen_at = at;
    }
  }
  if (chosen == nullptr) return std::nullopt;

  FieldRetry retry;
  retry.field = std::string(chosen->path);
  const auto parts = splitPath(chosen->path);
  Json& parent = *parentOf(body, parts);
  if (!chosen->rename_to.empty() && !parent.contains(std::string(chosen->rename_to))) {
    retry.renamed_to = std::string(chosen->rename_to);
    renameKey(parent, parts.back(), *retry.renamed_to);
  } else {
    parent.erase(parts.back());
  }
  retry.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return retry;
}

}  // namespace sluice::dispatch
