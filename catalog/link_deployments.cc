#include <set>

#include "catalog/linker.h"

namespace sluice::catalog {

void linkDeployments(LinkState& state) {
  std::map<std::string_view, const ModelDraft*> drafts;
  for (const ModelDraft& draft : state.draft.models) drafts.emplace(draft.model.id, &draft);
  std::set<std::string, std::less<>> listed;

  for (const DeploymentListDraft& list : state.draft.deployments) {
    const std::string& model_id = list.model.value;
    listed.insert(model_id);
    const Model* model = state.catalog.model(model_id);
    if (model == nullptr && state.checkModels()) {
      state.sink.error(list.model.where, "deployments for undeclared model '" + model_id + "'" +
                                             undeclaredModelHint(state, model_id) +
                                             "; declare it in models.yaml");
    }
    if (list.written_empty) {
      state.sink.error(list.model.where, "model '" + model_id + "' has no deployments");
    }
    std::string context = "deployment of model '" + model_id + "'";
    std::map<std::string, int, std::less<>> seen;
    std::vector<Deployment> chain;
    for (const DeploymentEntryDraft& entry : list.entries) {
      const Endpoint* endpoint = resolveEndpoint(state, entry.endpoint, context);
      if (endpoint == nullptr) continue;
      auto [it, inserted] = seen.emplace(endpoint->key, entry.endpoint.where.line);
      if (!inserted) {
        state.sink.error(entry.endpoint.where, "deployment '" + endpoint->key +
                                                   "' appears twice in model '" + model_id +
                                                   "'; first at line " + std::to_string(it->second));
        continue;
      }
      if (endpoint->wire == Wire::Mcp) {
        state.sink.error(entry.endpoint.where, "endpoint '" + endpoint->key +
                                                   "' is an MCP server (wire: mcp), served at /mcp/" +
                                                   endpoint->provider_id + ", not a deployment of a model");
        continue;
      }
      if (model == nullptr) continue;
      // The other kinds are called on an OpenAI-style base URL (`…/v1` + `/embeddings`, …): the
      // endpoint must be one that speaks OpenAI's API (openai-chat or openai-responses).
      if (model->kind != ModelKind::Chat && endpoint->wire != Wire::OpenAIChat &&
          endpoint->wire != Wire::OpenAIResponses) {
        state.sink.error(entry.endpoint.where,
                         "model '" + model_id + "' is of kind " + std::string(toString(model->kind)) +
                             " and is served on OpenAI's endpoints, but endpoint '" + endpoint->key + "' has wire " +
                             std::string(toString(endpoint->wire)) + "; use an openai-chat or openai-responses endpoint");
        continue;
      }
      Deployment deployment;
      deployment.model_id = model_id;
      deployment.endpoint_key = endpoint->key;
      deployment.provider_id = endpoint->provider_id;
      deployment.endpoint_id = endpoint->id;
      deployment.upstream_model = entry.upstream_model.value_or(model->upstream_model);
      deployment.pricing =
          deploymentPricing(drafts.at(model->id)->pricing_written, entry.pricing, state.sink,
                            "deployment '" + endpoint->key + "' of model '" + model_id + "'");
      deployment.where = entry.endpoint.where;
      chain.push_back(std::move(deployment));
    }
    if (model != nullptr && !chain.empty()) state.catalog.deployments[model_id] = std::move(chain);
  }

  if (!state.checkDeployments()) return;
  for (const Model& model : state.catalog.models) {
    if (!listed.contains(model.id)) {
      state.sink.error(model.where, "model '" + model.id +
                                        "' has no deployments; list at least one endpoint for it "
                                        "in deployments.yaml");
    }
  }
}

}  // namespace sluice::catalog
