// Provisioning's /Groups: a group is a directory_groups row and its name in members' groups.
#include <algorithm>

#include "server/identity/provisioning_steps.h"
#include "server/scim/body.h"
#include "server/scim/group_resource.h"

namespace sluice::identity::provisioning {

namespace {

struct Member {
  std::string id;
  std::string name;
};

std::vector<Member> membersOf(const Step& step, const std::string& group_name) {
  std::vector<Member> members;
  for (const auto& user : step.stores.directory.groupMembers(group_name)) {
    members.push_back({user.member.scim_id.value_or(""), user.member.name});
  }
  return members;
}

nlohmann::json render(const Step& step, const store::GroupRow& row, bool with_members) {
  scim::GroupView view{row.id, row.display_name, row.external_id, {}, row.created_at, row.updated_at};
  if (with_members) {
    for (auto& member : membersOf(step, row.display_name)) view.members.push_back({member.id, member.name});
  }
  return scim::renderGroup(view, step.call.base_url, with_members);
}

bool withMembers(const Step& step) {
  auto query = scim::parseListQuery(step.call.query);
  return !query || !query->without_members;
}

// The member names of `ids`, or the error naming the first id no User has.
std::expected<std::vector<Member>, scim::ScimError> resolve(const Step& step, const std::vector<std::string>& ids) {
  std::vector<Member> members;
  for (const auto& id : ids) {
    const auto user = step.stores.directory.findUser(id);
    if (!user) return std::unexpected(scim::invalidValue("no User with id '" + id.substr(0, 64) + "' to be a member"));
    members.push_back({id, user->member.name});
  }
  return members;
}

// Makes group `row` (members `current`) hold `next`: its name, externalId and members.
ScimAnswer applyGroup(const Step& step, store::GroupRow row, const std::vector<Member>& current,
                      const scim::GroupFields& next) {
  std::vector<std::string> added_ids;
  for (const auto& id : next.member_ids) {
    if (std::none_of(current.begin(), current.end(), [&](const Member& m) { return m.id == id; })) added_ids.push_back(id);
  }
  auto added = resolve(step, added_ids);  // every id checked before anything is written
  if (!added) return failed(added.error());
  std::vector<std::string> changed;
  if (next.display_name != row.display_name) {
    auto renamed = step.stores.directory.renameGroup(row.id, next.display_name, step.now);
    if (!renamed) {
      if (renamed.error() == store::GroupConflict::NoSuchGroup) return notFound("Group", row.id);
      return failed({409, "uniqueness", "a Group with displayName '" + next.display_name + "' already exists"});
    }
    step.record("group.rename", "group:" + next.display_name, row.display_name + " -> " + next.display_name);
    changed = *renamed;
    row.display_name = next.display_name;
  }
  if (next.external_id != row.external_id) {
    step.stores.directory.updateGroup(row.id, next.external_id, step.now);
    step.record("group.update", "group:" + row.display_name, "externalId");
  }
  for (const auto& member : *added) {
    if (step.stores.directory.addToGroup(member.name, row.display_name)) {
      step.record("group.add_member", member.name, "group " + row.display_name);
      changed.push_back(member.name);
    }
  }
  for (const auto& member : current) {
    if (std::find(next.member_ids.begin(), next.member_ids.end(), member.id) != next.member_ids.end()) continue;
    if (step.stores.directory.removeFromGroup(member.name, row.display_name)) {
      step.record("group.remove_member", member.name, "group " + row.display_name);
      changed.push_back(member.name);
    }
  }
  step.settleRoles(changed);
  ScimAnswer answer;
  answer.body = render(step, *step.stores.directory.findGroup(row.id), withMembers(step));
  return answer;
}

ScimAnswer createGroup(const Step& step, const nlohmann::json& body) {
  auto fields = scim::groupFromJson(body);
  if (!fields) return failed(fields.error());
  if (step.stores.directory.findGroupByName(fields->display_name)) {
    return failed({409, "uniqueness", "a Group with displayName '" + fields->display_name + "' already exists"});
  }
  auto members = resolve(step, fields->member_ids);
  if (!members) return failed(members.error());
  store::GroupRow row{newScimId(), fields->display_name, fields->external_id, step.now, step.now};
  auto inserted = step.stores.directory.insertGroup(row);
  if (!inserted) return failed({409, "uniqueness", "a Group with displayName '" + fields->display_name + "' already exists"});
  step.record("group.create", "group:" + row.display_name, "id " + row.id);
  // Members already holding the name (given it at the CLI) stay members: the group now has an id.
  std::vector<std::string> changed;
  for (const auto& member : *members) {
    if (step.stores.directory.addToGroup(member.name, row.display_name)) {
      step.record("group.add_member", member.name, "group " + row.display_name);
      changed.push_back(member.name);
    }
  }
  step.settleRoles(changed);
  ScimAnswer answer;
  answer.status = 201;
  answer.body = render(step, *inserted, true);
  answer.location = step.call.base_url + "/Groups/" + row.id;
  return answer;
}

ScimAnswer listGroups(const Step& step) {
  auto query = scim::parseListQuery(step.call.query);
  if (!query) return failed(query.error());
  using Field = store::GroupMatch::Field;
  store::GroupMatch match;
  if (query->filter) {
    const std::string& attribute = query->filter->attribute;
    if (attribute == "displayname") match.field = Field::DisplayName;
    else if (attribute == "externalid") match.field = Field::ExternalId;
    else if (attribute == "id") match.field = Field::Id;
    else return failed(scim::invalidFilter("Groups are filtered by displayName, externalId or id, not " + attribute));
    match.value = query->filter->value;
  }
  const auto page = step.stores.directory.findGroups(match, query->start_index - 1, query->count);
  nlohmann::json resources = nlohmann::json::array();
  for (const auto& row : page.groups) resources.push_back(render(step, row, !query->without_members));
  ScimAnswer answer;
  answer.body = scim::listResponse(std::move(resources), page.total, query->start_index);
  return answer;
}

}  // namespace

ScimAnswer serveGroups(const Step& step, const std::string& id) {
  const std::string& method = step.call.method;
  if (id.empty()) {
    if (method == "GET") return listGroups(step);
    if (method != "POST") return failed({405, "", "/Groups takes GET and POST"});
    auto body = scim::parseBody(step.call.body);
    if (!body) return failed(body.error());
    return createGroup(step, *body);
  }
  const auto row = step.stores.directory.findGroup(id);
  if (!row) return notFound("Group", id);
  if (method == "GET") {
    ScimAnswer answer;
    answer.body = render(step, *row, withMembers(step));
    return answer;
  }
  if (method == "DELETE") {
    const auto changed = step.stores.directory.deleteGroup(id);
    if (!changed) return notFound("Group", id);
    step.record("group.delete", "group:" + row->display_name, "removed from " + std::to_string(changed->size()) + " member(s)");
    for (const auto& name : *changed) step.record("group.remove_member", name, "group " + row->display_name + " deleted");
    step.settleRoles(*changed);
    ScimAnswer answer;
    answer.status = 204;
    return answer;
  }
  if (method != "PUT" && method != "PATCH") return failed({405, "", "/Groups/{id} takes GET, PUT, PATCH and DELETE"});
  auto body = scim::parseBody(step.call.body);
  if (!body) return failed(body.error());
  const auto current = membersOf(step, row->display_name);
  std::expected<scim::GroupFields, scim::ScimError> next;
  if (method == "PATCH") {
    auto operations = scim::parsePatch(*body);
    if (!operations) return failed(operations.error());
    scim::GroupFields fields{row->display_name, row->external_id, {}};
    for (const auto& member : current) fields.member_ids.push_back(member.id);
    next = scim::applyGroupPatch(std::move(fields), *operations);
  } else {
    next = scim::groupFromJson(*body);
  }
  if (!next) return failed(next.error());
  ScimAnswer answer = applyGroup(step, *row, current, *next);
  if (method == "PATCH" && answer.status == 200) {
    // RFC 7644 §3.5.2: 204 when the body is not asked for; Okta and Entra ID take either.
    answer.status = 204;
    answer.body = nullptr;
  }
  return answer;
}

}  // namespace sluice::identity::provisioning
