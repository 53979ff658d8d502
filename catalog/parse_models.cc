#include <algorithm>
#include <array>
#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

// Capabilities the gateway acts on. Others are kept (a typo only costs a warning, since a
// capability the gateway does not know cannot change what it does).
constexpr std::array<std::string_view, 10> kKnownCapabilities = {
    "streaming", "tools",      "vision", "thinking",   "prompt_caching",
    "pdf",       "json_mode", "audio",  "web_search", "structured_output"};

void readClients(YamlReader& reader, const Entry& entry, const std::string& owner, Model& model) {
  auto clients = reader.stringList(entry, "clients of " + owner);
  if (!clients) return;
  model.clients.clear();  // a written list replaces the default (readModel): exactly the families named
  for (const auto& client : *clients) {
    std::optional<ClientFamily> family = parseClientFamily(client.value);
    if (!family) {
      reader.error(client.where, "client '" + client.value + "' of " + owner +
                                     " must be one of: claude, opencode, codex, openai");
    } else if (!model.advertisedTo(*family)) {
      model.clients.push_back(*family);
    }
  }
}

void readCapabilities(YamlReader& reader, const Entry& entry, const std::string& owner,
                      Model& model) {
  auto capabilities = reader.stringList(entry, "capabilities of " + owner);
  if (!capabilities) return;
  for (const auto& capability : *capabilities) {
    if (std::ranges::find(kKnownCapabilities, capability.value) == kKnownCapabilities.end()) {
      std::string known;
      for (std::string_view name : kKnownCapabilities) known += (known.empty() ? "" : ", ") + std::string(name);
      reader.warning(capability.where, "unknown capability '" + capability.value + "' of " + owner +
                                           "; known: " + known);
    }
    if (!model.hasCapability(capability.value)) model.capabilities.push_back(capability.value);
  }
}

void readLimits(YamlReader& reader, const Entry& entry, const std::string& owner, Model& model) {
  std::string what = "limits of " + owner;
  Fields limits = reader.fields(entry, what, {"context_window", "max_output"});
  for (const Entry& e : limits.entries()) {
    auto value = reader.integer(e, e.key + " in " + what, 1);
    if (e.key == "context_window") {
      model.limits.context_window = value;
    } else {
      model.limits.max_output = value;
    }
  }
  const auto& window = model.limits.context_window;
  const auto& max_output = model.limits.max_output;
  if (window && max_output && *max_output > *window) {
    reader.error(limits.find("max_output")->value_at,
                 "max_output in " + what + " (" + std::to_string(*max_output) +
                     ") exceeds its context_window (" + std::to_string(*window) + ")");
  }
}

ModelDraft readModel(YamlReader& reader, const Entry& entry) {
  ModelDraft draft;
  Model& model = draft.model;
  model.id = entry.key;
  model.display_name = entry.key;
  model.upstream_model = entry.key;
  model.where = entry.key_at;
  // Not written, clients: lists the model to a generic OpenAI client (every caller that is not
  // Claude Code, OpenCode or Codex) and to no dedicated one.
  model.clients = {ClientFamily::OpenAI};
  std::string owner = "model '" + entry.key + "'";
  Fields fields = reader.fields(entry, owner,
                                {"display_name", "upstream_model", "kind", "clients", "capabilities",
                                 "limits", "pricing", "governance", "retired"});
  if (!fields.ok()) return draft;
  if (const Entry* e = fields.find("kind")) {
    if (auto text = reader.string(*e, "kind of " + owner)) {
      if (auto kind = parseModelKind(*text)) {
        model.kind = *kind;
      } else {
        reader.error(e->value_at, "kind '" + *text + "' of " + owner +
                                      " must be one of: chat, embedding, image, audio, moderation, rerank");
      }
    }
  }
  if (const Entry* e = fields.find("display_name")) {
    model.display_name = reader.string(*e, "display_name of " + owner).value_or(entry.key);
  }
  if (const Entry* e = fields.find("upstream_model")) {
    model.upstream_model = reader.string(*e, "upstream_model of " + owner).value_or(entry.key);
    if (model.upstream_model.empty()) {
      reader.error(e->value_at, "upstream_model of " + owner + " must not be empty");
      model.upstream_model = entry.key;
    }
  }
  if (const Entry* e = fields.find("clients")) readClients(reader, *e, owner, model);
  if (const Entry* e = fields.find("capabilities")) readCapabilities(reader, *e, owner, model);
  if (const Entry* e = fields.find("limits")) readLimits(reader, *e, owner, model);
  if (const Entry* e = fields.find("pricing")) {
    draft.pricing_written = readPricing(reader, *e, owner);
  }
  draft.pricing_written.tokens_required = model.kind == ModelKind::Chat;
  model.pricing = modelPricing(draft.pricing_written, reader.sink(), owner);
  if (const Entry* e = fields.find("governance")) {
    Fields governance = reader.fields(*e, "governance of " + owner, {"european", "no_retain"});
    for (const Entry& flag : governance.entries()) {
      auto value = reader.boolean(flag, flag.key + " in governance of " + owner);
      (flag.key == "european" ? model.governance.european : model.governance.no_retain) = value;
    }
  }
  if (const Entry* e = fields.find("retired")) {
    if (auto retired = reader.stringList(*e, "retired of " + owner)) {
      for (auto& id : *retired) {
        if (!checkModelId(reader, id, "retired")) continue;
        model.retired.push_back(id.value);
        draft.retired_at.push_back(id.where);
      }
    }
  }
  return draft;
}

}  // namespace

void parseModels(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "models");
  if (!body) return;
  Fields models = reader.fields(*body, "models");
  if (!models.ok()) return;
  draft.models_loaded = true;
  for (const Entry& entry : models.entries()) {
    checkModelId(reader, {entry.key, entry.key_at}, "model");
    draft.models.push_back(readModel(reader, entry));
  }
}

}  // namespace sluice::catalog
