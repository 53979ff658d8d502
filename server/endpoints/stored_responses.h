#pragma once
// GET /v1/responses/{id}, DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items as a
// profile of the one pipeline: what the gateway kept of a member's Responses-API responses
// (responses::Store). The caller is identified like any API call; another member's id is not
// found (404), as with OpenAI. Answered in read(): nothing is planned or sent. One audit row
// each, route_match led by endpoint:responses_get / responses_delete / responses_input_items.
// Not thread-safe: one per request.

#include <string>

#include "server/pipeline/profile.h"

namespace sluice::endpoints {

class StoredResponses : public pipeline::Profile {
 public:
  catalog::Wire clientWire() const override { return catalog::Wire::OpenAIResponses; }
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  std::string path() const override { return "/v1/responses/{id}"; }
  wire::ApiError failureAnswer() const override;
};

}  // namespace sluice::endpoints
