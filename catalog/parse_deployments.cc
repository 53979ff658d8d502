#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

std::optional<DeploymentEntryDraft> readEntry(YamlReader& reader, const YAML::Node& node,
                                              const Location& where, const std::string& owner) {
  DeploymentEntryDraft entry;
  if (node.IsScalar()) {
    std::optional<std::string> endpoint = reader.string(node, where, "deployment of " + owner);
    if (!endpoint) return std::nullopt;
    entry.endpoint = {std::move(*endpoint), where};
    return entry;
  }
  std::string what = "deployment of " + owner;
  if (!node.IsMap()) {
    reader.error(where, what + " must be 'provider/endpoint' or a mapping with endpoint:, got " +
                            describeNode(node));
    return std::nullopt;
  }
  Fields fields = reader.fields(node, where, what, {"endpoint", "upstream_model", "pricing"});
  const Entry* endpoint = fields.find("endpoint");
  if (endpoint == nullptr) {
    reader.error(where, what + " needs endpoint: provider/endpoint");
    return std::nullopt;
  }
  std::optional<std::string> key = reader.string(*endpoint, "endpoint of " + what);
  if (!key) return std::nullopt;
  entry.endpoint = {std::move(*key), endpoint->value_at};
  std::string named = "deployment '" + entry.endpoint.value + "' of " + owner;
  if (const Entry* e = fields.find("upstream_model")) {
    entry.upstream_model = reader.string(*e, "upstream_model of " + named);
    if (entry.upstream_model && entry.upstream_model->empty()) {
      reader.error(e->value_at, "upstream_model of " + named + " must not be empty");
      entry.upstream_model.reset();
    }
  }
  if (const Entry* e = fields.find("pricing")) entry.pricing = readPricing(reader, *e, named);
  return entry;
}

}  // namespace

void parseDeployments(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "deployments");
  if (!body) return;
  Fields models = reader.fields(*body, "deployments");
  if (!models.ok()) return;
  draft.deployments_loaded = true;
  for (const Entry& model : models.entries()) {
    DeploymentListDraft list;
    list.model = {model.key, model.key_at};
    std::string owner = "model '" + model.key + "'";
    if (!model.value.IsSequence()) {
      reader.error(model.value_at, "deployments of " + owner +
                                       " must be a list of endpoints, got " + describeNode(model.value));
    } else {
      list.written_empty = model.value.size() == 0;
      for (const YAML::Node& item : model.value) {
        auto entry = readEntry(reader, item, reader.at(item, model.value_at), owner);
        if (entry) list.entries.push_back(std::move(*entry));
      }
    }
    draft.deployments.push_back(std::move(list));
  }
}

}  // namespace sluice::catalog
