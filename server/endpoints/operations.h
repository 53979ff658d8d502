#pragma once
// The /v1 endpoints that are not chat formats (wire/operation.h) as a profile of the one pipeline:
// embeddings, image generations, speech, transcriptions and translations, moderations, rerank.
// What differs from inference:
//
//   - the model must be of the operation's kind (400 model_kind_mismatch otherwise);
//   - the body is relayed with only its `model` rewritten to the deployment's upstream model: a
//     JSON body in its own text (wire::editTopLevelMembers), a multipart upload streamed as it
//     arrives (http/upload.h), which then cannot move to another deployment once it was spent;
//   - data protection as everywhere: a JSON body's texts are masked for the masked tiers
//     (protection/json_texts.h; nothing in the answer is restored: vectors, images, audio and
//     scores carry no text of the request). An upload cannot be scanned before it streams, so a
//     masked tier is never sent one (fails closed);
//   - the answer is relayed byte for byte as it arrives, with its content type (audio included);
//   - it is counted in tokens from the answer's `usage` and/or in units (images, characters,
//     seconds, requests: dispatch::unitsFor) and priced per token and per unit.
//
// route_match leads with `endpoint:<operation>` (endpoint:embeddings, …).
// Not thread-safe: one per request.

#include <optional>
#include <string>

#include "server/pipeline/upload.h"
#include "server/pipeline/profile.h"
#include "server/wire/answer_meter.h"
#include "server/wire/json_scan.h"
#include "server/wire/operation.h"

namespace sluice::endpoints {

class Operations : public pipeline::Profile {
 public:
  explicit Operations(wire::Operation operation) : operation_(operation) {}

  catalog::Wire clientWire() const override { return catalog::Wire::OpenAIChat; }
  std::string endpointSegment() const override;
  std::string_view operation() const override;
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  catalog::ModelKind kind() const override { return wire::kindFor(operation_); }
  std::string path() const override { return "/v1/" + std::string(wire::toString(operation_)); }
  bool mayTryAnother() const override { return !(upload_ && upload_->started()); }
  pipeline::MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) override;
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan,
                                                     bool masked) override;
  std::string_view lane(const dispatch::Attempt& attempt, bool masked) const override;
  void shape(pipeline::AttemptCall& call) override;
  pipeline::RelayResult relay(pipeline::Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt& attempt,
                          pipeline::Answer& answer, bool masked, pipeline::RelayOptions options) override;
  dispatch::Charge charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                          pipeline::RelayResult& relayed) override;
  bool closesConnection(bool refused) const override;

 private:
  std::expected<std::string, wire::ApiError> readJson(pipeline::Exchange& exchange);
  std::expected<std::string, wire::ApiError> readUpload(pipeline::Exchange& exchange);
  // `raw` (the client's JSON or its masked copy) with the model rewritten to `upstream_model`.
  std::expected<std::string, wire::ApiError> withModel(const std::string& raw, const wire::MembersScan& scan,
                                                       const std::string& upstream_model) const;

  wire::Operation operation_;
  std::string raw_;               // a JSON body
  wire::MembersScan scan_;
  std::optional<std::string> masked_;  // the JSON body with its texts masked
  wire::MembersScan masked_scan_;
  std::optional<pipeline::Upload> upload_;  // a multipart body
  std::string content_type_;      // "" = application/json
  std::string accept_;
  int64_t input_characters_ = 0;
  wire::AnswerMeter meter_;
};

}  // namespace sluice::endpoints
