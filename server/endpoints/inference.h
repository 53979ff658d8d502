#pragma once
// The inference endpoints as a profile of the one pipeline: POST /v1/messages,
// /v1/chat/completions and /v1/responses (and their unversioned aliases), in the client's wire.
//
//   read     the body whole, its top-level members scanned (never re-parsed); a Responses body that
//            names stored items (previous_response_id, item_reference) or is kept (its top-level
//            `store` not false) has them inlined from the gateway's store, their bytes summed by
//            the store and bounded by the body limit and the body budget before they are read
//   plan     chat models; the token estimate from the IR when the body may not fit; conversation
//            affinity keyed by the client's session, prompt_cache_key, or the conversation's prefix
//   lane     passthrough (same wire: the body with only changed members rewritten, relayed byte for
//            byte), translated through the IR, or masked (the IR masked, encoded, answers restored)
//   finish   a Responses answer that asked to be stored is kept under the gateway's id, which the
//            client is shown on every lane (never fails the request)
// Not thread-safe: one per request.

#include <optional>
#include <string>

#include "server/pipeline/client_body.h"
#include "server/pipeline/profile.h"
#include "server/responses/conversation.h"

namespace sluice::endpoints {

class Inference : public pipeline::Profile {
 public:
  explicit Inference(catalog::Wire client_wire) : client_wire_(client_wire) {}
  // With the body already read (tests, and callers that hold it): `raw` inspected at once.
  Inference(catalog::Wire client_wire, std::string raw);

  // The body as read; the IR masked for the masked tiers (after maskOnce() succeeded).
  pipeline::ClientBody& body() { return *body_; }
  const wire::Request& maskedRequest() const { return *masked_; }

  catalog::Wire clientWire() const override { return client_wire_; }
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  std::string path() const override;
  std::optional<int64_t> estimateInputTokens() override;
  bool pinsConversations() const override { return true; }
  std::optional<std::string> conversationKey(pipeline::Exchange& exchange) override;
  pipeline::MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) override;
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan,
                                                     bool masked) override;
  void shape(pipeline::AttemptCall& call) override;
  pipeline::RelayResult relay(pipeline::Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt& attempt,
                          pipeline::Answer& answer, bool masked, pipeline::RelayOptions options) override;
  dispatch::Charge charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                          pipeline::RelayResult& relayed) override;
  void beforeExecute(pipeline::Exchange& exchange) override;
  void afterExecute(pipeline::Exchange& exchange) override;

 private:
  // The raw body with the stored items inlined; the refusal when one is missing.
  std::expected<std::string, wire::ApiError> expandStored(pipeline::Exchange& exchange, std::string_view raw);
  void keepStored(pipeline::Exchange& exchange);

  catalog::Wire client_wire_;
  std::optional<pipeline::ClientBody> body_;
  std::optional<wire::Request> masked_;                 // the IR masked for the masked tiers
  std::optional<responses::Expansion> stored_turn_;     // its body moved on; input and previous id kept
  std::optional<responses::ResponseCapture> capture_;
};

}  // namespace sluice::endpoints
