#pragma once
// The optional-field retry: some targets answer 400/422 to a field they do not support
// (`reasoning_effort`, `max_completion_tokens`, `stream_options`, `seed`, ...). When the error
// names such a field and the body we sent carries it, the same target is tried once more without
// it, and the audit row records `retried_without:<field>`. Pure: strings in, strings out.
//
// A field counts as named when the error's `param` is that field, or its message (any string in
// the error body) mentions it. Plain-word fields (`user`, `store`, `metadata`, ...) must be
// mentioned explicitly: quoted ('user', "user", `user`), as `user:` or after `: `, so a message
// about "the user message" never drops the `user` field. Required fields (model, messages, input,
// contents, ...) are never touched. When several are named, `param` wins, then the earliest
// mention.
//
// Two fields are renamed rather than dropped:
// - `max_completion_tokens` becomes `max_tokens` (OpenAI-compatible targets that predate it);
// - `max_tokens` becomes `max_completion_tokens` when the error says to use it instead (OpenAI
//   reasoning models); otherwise max_tokens is left alone.
// A rename whose target the body already carries drops the field instead.

#include <optional>
#include <string>
#include <string_view>

namespace sluice::dispatch {

struct FieldRetry {
  std::string field;                      // as in the body: "seed", "reasoning.effort", "generationConfig.seed"
  std::optional<std::string> renamed_to;  // "max_tokens" when renamed rather than dropped
  std::string body;                       // the body to send again (JSON, key order kept)

  std::string segment() const { return "retried_without:" + field; }
};

// nullopt when the status is not 400 or 422, the request body is not a JSON object, or the error
// names no optional field the body carries.
std::optional<FieldRetry> optionalFieldRetry(int status, std::string_view error_body, std::string_view request_body);

}  // namespace sluice::dispatch
