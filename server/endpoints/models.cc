#include "server/endpoints/models.h"

#include <nlohmann/json.hpp>

#include "server/http/handlers.h"
#include "server/pipeline/identity_gate.h"
#include "server/http/respond.h"
#include "server/wire/client.h"

namespace sluice::endpoints {

using http::sendError;

namespace {

// One entry both the OpenAI (id/object/created/owned_by) and the Anthropic (type/id/display_name/
// created_at) SDKs parse.
nlohmann::json modelEntry(const std::string& id, const std::string& display_name, const catalog::Model& model) {
  nlohmann::json entry = {{"id", id},
                          {"object", "model"},
                          {"type", "model"},
                          {"display_name", display_name},
                          {"created", 0},
                          {"created_at", "1970-01-01T00:00:00Z"},
                          {"owned_by", "sluice"}};
  if (model.limits.context_window) entry["context_window"] = *model.limits.context_window;
  if (model.limits.max_output) entry["max_output_tokens"] = *model.limits.max_output;
  return entry;
}

}  // namespace

void ModelsHandler::handle(http::Request& routed, http::ServerResponse& response) {
  Poco::Net::HTTPServerRequest& request = routed.head();
  const auto catalog = gateway_.catalog();
  const catalog::Wire wire = request.has("anthropic-version") ? catalog::Wire::Anthropic : catalog::Wire::OpenAIChat;
  if (auto who = pipeline::identify(gateway_, request); !who) {
    return sendError(response, wire, who.error(), response.get("x-sluice-request-id", ""));
  }
  const auto family = wire::detectClientFamily(request.get("x-sluice-client", ""), request.get("User-Agent", ""), wire);
  nlohmann::json data = nlohmann::json::array();
  for (const auto& model : catalog->models) {
    if (model.advertisedTo(family)) data.push_back(modelEntry(model.id, model.display_name, model));
  }
  for (const auto& route : catalog->routes) {
    if (route.kind != catalog::RouteKind::Alias || route.models.empty()) continue;
    const auto* model = catalog->model(route.models.front());
    if (model && model->advertisedTo(family)) {
      data.push_back(modelEntry(route.id, route.label.empty() ? route.id : route.label, *model));
    }
  }
  nlohmann::json body = {{"object", "list"}, {"data", data}, {"has_more", false}};
  body["first_id"] = data.empty() ? nlohmann::json(nullptr) : data.front()["id"];
  body["last_id"] = data.empty() ? nlohmann::json(nullptr) : data.back()["id"];
  sendJson(response, 200, body.dump());
}

}  // namespace sluice::endpoints
