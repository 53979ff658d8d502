// POST /admin/api/probe: the console's Test button. The request is checked here; the probe itself
// is a profile of the one pipeline (server/endpoints/probe.h), so it is identified, protected,
// sent, audited and measured as every request is.
#include "server/admin/api.h"
#include "server/endpoints/probe.h"
#include "server/pipeline/exchange.h"
#include "server/wire/json_access.h"

namespace sluice::admin {

namespace {

constexpr const char* kDefaultPrompt = "Reply with one short sentence: are you there?";
constexpr size_t kMaxPrompt = 500;

}  // namespace

Reply probeDeployment(ConsoleContext& context, const Exchange& exchange, http::Request& request,
                      http::ServerResponse& response) {
  const auto body = wire::parseRequestObject(exchange.body);
  const auto* model = body ? wire::member(*body, "model") : nullptr;
  const auto* endpoint = body ? wire::member(*body, "endpoint") : nullptr;
  if (model == nullptr || endpoint == nullptr || !model->is_string() || !endpoint->is_string()) {
    return Reply::error(400, "bad_probe", "send {\"model\": \"<model id>\", \"endpoint\": \"<provider/endpoint>\"}");
  }
  endpoints::Probe::Target target{.model_id = model->get<std::string>(),
                                  .endpoint_key = endpoint->get<std::string>(),
                                  .prompt = wire::optionalString(*body, "prompt").value_or(kDefaultPrompt),
                                  .user = exchange.user};
  if (target.prompt.empty() || target.prompt.size() > kMaxPrompt) target.prompt = kDefaultPrompt;
  if (context.gateway.catalog()->deployment(target.model_id, target.endpoint_key) == nullptr) {
    return Reply::error(404, "no_such_deployment",
                        "no deployment of " + target.model_id + " on " + target.endpoint_key);
  }
  http::BodyBudget::Lease lease;  // the console read its body already; nothing is leased
  endpoints::Probe probe(std::move(target));
  pipeline::Exchange(context.gateway, probe, request, response, lease).run();
  const auto& result = probe.result();
  if (result.contains("error_status")) {  // reloaded away between the check above and the plan
    return Reply::error(result["error_status"].get<int>(), result["key"].get<std::string>(),
                        result["message"].get<std::string>());
  }
  return Reply::json(result);
}

}  // namespace sluice::admin
