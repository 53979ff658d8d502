#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

void readBands(YamlReader& reader, const Entry& entry, const std::string& what, AccessBands& bands) {
  Fields fields = reader.fields(entry, what, {"person", "project", "group", "role"});
  for (const Entry& e : fields.entries()) {
    std::vector<std::string>& target = e.key == "person"    ? bands.person
                                       : e.key == "project" ? bands.project
                                       : e.key == "group"   ? bands.group
                                                            : bands.role;
    auto names = reader.stringList(e, e.key + " in " + what, true);
    if (!names) continue;
    for (auto& name : *names) target.push_back(std::move(name.value));
  }
}

AccessRuleDraft readRule(YamlReader& reader, const YAML::Node& node, const Location& at,
                         size_t index) {
  AccessRuleDraft draft;
  AccessRule& rule = draft.rule;
  rule.where = at;
  draft.entity_at = at;
  std::string owner = "entity #" + std::to_string(index + 1);
  if (node.IsMap()) {
    const YAML::Node entity = node["entity"];
    if (entity && entity.IsScalar()) owner = "entity '" + entity.Scalar() + "'";
  }
  Fields fields = reader.fields(node, at, owner, {"entity", "default", "why", "allow", "deny"});
  if (!fields.ok()) return draft;
  if (const Entry* e = fields.find("entity")) {
    rule.entity = reader.string(*e, "entity of " + owner).value_or("");
    draft.entity_at = e->value_at;
  } else {
    reader.error(at, owner + " needs entity: gateway_route/<route id> or gateway_route/*");
  }
  if (const Entry* e = fields.find("default")) {
    rule.default_access = reader.choice<AccessDefault>(*e, "default of " + owner,
                                                      {{"open", AccessDefault::Open},
                                                       {"closed", AccessDefault::Closed}})
                              .value_or(AccessDefault::Open);
  } else {
    reader.error(at, owner + " needs default: open or closed");
  }
  if (const Entry* e = fields.find("why")) {
    rule.why = reader.string(*e, "why of " + owner).value_or("");
  }
  if (rule.why.empty()) {
    reader.warning(at, owner + " has no why: a denial will not tell the caller the reason");
  }
  if (const Entry* e = fields.find("allow")) readBands(reader, *e, "allow of " + owner, rule.allow);
  if (const Entry* e = fields.find("deny")) readBands(reader, *e, "deny of " + owner, rule.deny);
  return draft;
}

}  // namespace

void parseAccessRules(const SourceText& source, const ParseContext& context, Draft& draft) {
  YamlReader reader(source.path, context.env, context.sink, &context.variables);
  std::optional<Entry> body = readTopLevel(reader, source.text, "entities");
  if (!body || body->value.IsNull()) return;
  if (!body->value.IsSequence()) {
    reader.error(body->value_at, "entities must be a list, got " + describeNode(body->value));
    return;
  }
  size_t index = 0;
  for (const YAML::Node& item : body->value) {
    draft.access_rules.push_back(readRule(reader, item, reader.at(item, body->value_at), index++));
  }
}

}  // namespace sluice::catalog
