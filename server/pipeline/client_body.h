#pragma once
// The client's request body on the inference path: the top-level members read before a lane is
// chosen (found by scanning, so a passthrough request is never parsed whole), the neutral IR
// decoded only when a translation or a size estimate needs it, and the body each attempt sends.
// Not thread-safe: one per request.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "server/dispatch/planner.h"
#include "server/wire/api_error.h"
#include "server/wire/ir.h"
#include "server/wire/json_scan.h"
#include "server/pipeline/http_types.h"

namespace sluice::pipeline {

class ClientBody {
 public:
  ClientBody(catalog::Wire client_wire, std::string raw);

  // Reads the members the pipeline needs; the refusal (400) when the body is not a JSON object,
  // nests too deep, names the model with something other than a string, or names one of the
  // members read here (model, stream, stream_options, the max-token members, store) more than once.
  std::expected<void, wire::ApiError> inspect();

  size_t size() const { return raw_.size(); }
  const std::string& raw() const { return raw_; }
  const std::string& requestedModel() const { return requested_model_; }  // "" when absent
  bool stream() const { return stream_; }
  // The top-level `store` is the literal false (a `store` nested in another member is not it).
  bool storeFalse() const { return store_false_; }
  // OpenAI Chat: the client asked for usage in its stream (stream_options.include_usage).
  bool clientAskedUsage() const { return client_asked_usage_; }
  // The request's own output ceiling, by its wire's field name; nullopt when absent.
  std::optional<int64_t> maxTokens() const;

  // A top-level string member (parses the body whole on first use); nullopt when absent or not a string.
  std::optional<std::string> stringMember(std::string_view name);

  // The IR, decoded on first use; the decoder's refusal when the body does not decode.
  std::expected<const wire::Request*, wire::ApiError> ir();

  // The body `attempt` sends: the client's own with only the changed members rewritten when the
  // wires match, else the request encoded for the provider's wire.
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan);

  // `request` (this body's IR, or a masked copy of it) encoded for `attempt`'s wire, as bodyFor()
  // encodes a translation; the encoder's refusal when the wire cannot express it.
  static std::expected<std::string, wire::ApiError> encodedFor(const wire::Request& request,
                                                               const dispatch::Attempt& attempt,
                                                               const dispatch::Plan& plan);

 private:
  enum HeadKey : size_t { kModel, kStream, kStreamOptions, kMaxTokens, kMaxCompletionTokens, kMaxOutputTokens, kStore };
  std::optional<nlohmann::ordered_json> member(HeadKey key) const;
  nlohmann::ordered_json& parsed();

  catalog::Wire client_wire_;
  std::string raw_;
  wire::MembersScan head_;
  std::optional<nlohmann::ordered_json> full_;  // parsed only when the scan cannot serve
  std::string requested_model_;
  bool stream_ = false;
  bool store_false_ = false;
  bool client_asked_usage_ = false;
  HeadKey max_tokens_key_ = kMaxTokens;
  std::optional<wire::Request> ir_;
  std::optional<wire::ApiError> decode_error_;
};

}  // namespace sluice::pipeline
