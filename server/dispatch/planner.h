#pragma once
// Decides which deployments to try, in order, for one request.
// Pure: the same inputs give the same plan. Never blocks, never throws on bad input.
//
// The plan points into the catalog it was made from; the caller keeps that snapshot alive for as
// long as it uses the plan.

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/wire/api_error.h"

namespace sluice::dispatch {

struct PlanRequest {
  std::string requested_model;         // as the client sent it; empty -> the catalog's default_model
  std::optional<std::string> project;  // the project the request is attributed to, if any
};

// One deployment to try, with everything needed to call it resolved.
struct Attempt {
  const catalog::Deployment* deployment = nullptr;
  const catalog::Endpoint* endpoint = nullptr;
  const catalog::Provider* provider = nullptr;
  const catalog::Credential* credential = nullptr;
  int weight = 1;
};

struct Plan {
  std::string requested_model;  // as sent (after defaulting), marker included
  std::string model_id;         // the declared model that serves it
  const catalog::Model* model = nullptr;
  const catalog::Route* route = nullptr;
  std::vector<Attempt> attempts;         // failover order
  std::vector<std::string> route_match;  // segments, joined with ';' on the audit row
};

// Refusals: 404 model_not_found (unknown id), 404 retired_model (names the replacement),
// 400 invalid_request (no model and no default), 503 no_deployment (nothing declared to serve it).
std::expected<Plan, wire::ApiError> planDispatch(const catalog::Catalog& catalog, const PlanRequest& request);

std::string joinRouteMatch(const std::vector<std::string>& segments);

}  // namespace sluice::dispatch
