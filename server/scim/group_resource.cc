#include "server/scim/group_resource.h"

#include <algorithm>
#include <cctype>

#include "server/scim/bounds.h"

namespace sluice::scim {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The ids of a members value: [{"value":"id"}…] (a single object is taken as a list of one).
std::expected<std::vector<std::string>, ScimError> memberIdsOf(const nlohmann::json& members) {
  std::vector<std::string> ids;
  if (members.is_null()) return ids;
  const nlohmann::json list = members.is_object() ? nlohmann::json::array({members}) : members;
  if (!list.is_array()) return std::unexpected(invalidValue("members must be an array of {\"value\": id}"));
  if (list.size() > kMaxMembersPerRequest) {
    return std::unexpected(ScimError{400, "tooMany", "at most 10000 members in one request"});
  }
  for (const auto& entry : list) {
    const nlohmann::json* value = nullptr;
    if (entry.is_object()) {
      for (auto it = entry.begin(); it != entry.end(); ++it) {
        if (lower(it.key()) == "value") value = &it.value();
      }
    }
    if (!value || !value->is_string() || value->get<std::string>().empty() ||
        value->get<std::string>().size() > kMaxIdBytes) {
      return std::unexpected(invalidValue("each member is {\"value\": \"<a User id>\"}"));
    }
    if (std::find(ids.begin(), ids.end(), value->get<std::string>()) == ids.end()) ids.push_back(value->get<std::string>());
  }
  return ids;
}

std::expected<std::string, ScimError> displayNameOf(const nlohmann::json& value) {
  if (!value.is_string()) return std::unexpected(invalidValue("displayName must be a string"));
  std::string name = value.get<std::string>();
  if (auto problem = groupNameProblem(name)) return std::unexpected(invalidValue(*problem));
  return name;
}

std::expected<std::optional<std::string>, ScimError> externalIdOf(const nlohmann::json& value) {
  if (value.is_null()) return std::optional<std::string>();
  if (!value.is_string()) return std::unexpected(invalidValue("externalId must be a string"));
  std::string text = value.get<std::string>();
  if (text.size() > kMaxTextBytes || hasControl(text)) {
    return std::unexpected(invalidValue("externalId is longer than 512 bytes or holds a control character"));
  }
  if (text.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(text));
}

void addIds(std::vector<std::string>& to, const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    if (std::find(to.begin(), to.end(), id) == to.end()) to.push_back(id);
  }
}

void removeIds(std::vector<std::string>& from, const std::vector<std::string>& ids) {
  std::erase_if(from, [&](const std::string& id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); });
}

}  // namespace

std::optional<std::string> groupNameProblem(std::string_view name) {
  if (name.empty()) return "displayName cannot be empty";
  if (name.size() > kMaxGroupNameBytes) return "displayName is longer than 128 bytes";
  if (hasControl(name)) return "displayName holds a control character";
  if (name.front() == ' ' || name.back() == ' ') return "displayName starts or ends with a blank";
  return std::nullopt;
}

std::expected<GroupFields, ScimError> groupFromJson(const nlohmann::json& body) {
  if (!body.is_object()) return std::unexpected(invalidSyntax("a Group is a JSON object"));
  GroupFields group;
  bool named = false;
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string key = canonicalAttribute(it.key());
    if (key == "displayname") {
      auto name = displayNameOf(it.value());
      if (!name) return std::unexpected(name.error());
      group.display_name = std::move(*name);
      named = true;
    } else if (key == "externalid") {
      auto external = externalIdOf(it.value());
      if (!external) return std::unexpected(external.error());
      group.external_id = std::move(*external);
    } else if (key == "members") {
      auto ids = memberIdsOf(it.value());
      if (!ids) return std::unexpected(ids.error());
      group.member_ids = std::move(*ids);
    }
  }
  if (!named) return std::unexpected(invalidValue("displayName is required"));
  return group;
}

std::expected<GroupFields, ScimError> applyGroupPatch(GroupFields current, const std::vector<PatchOperation>& operations) {
  for (const auto& operation : operations) {
    if (!operation.path) return std::unexpected(ScimError{400, "noTarget", "an operation without a path"});
    const PatchPath& path = *operation.path;
    if (path.attribute == "members") {
      std::vector<std::string> ids;
      if (path.filter) {
        // members[value eq "id"]: Okta's remove of one member.
        if (path.filter->attribute != "value") {
          return std::unexpected(invalidFilter("a members filter compares value: members[value eq \"<id>\"]"));
        }
        ids.push_back(path.filter->value);
      }
      auto given = memberIdsOf(operation.value);
      if (!given) return std::unexpected(given.error());
      addIds(ids, *given);
      switch (operation.kind) {
        case PatchKind::Add: addIds(current.member_ids, ids); break;
        case PatchKind::Remove:
          if (ids.empty()) current.member_ids.clear();  // remove "members": every member
          else removeIds(current.member_ids, ids);
          break;
        case PatchKind::Replace:
          if (path.filter) {
            addIds(current.member_ids, ids);
          } else {
            current.member_ids = std::move(ids);
          }
          break;
      }
      continue;
    }
    if (path.attribute == "displayname") {
      if (operation.kind == PatchKind::Remove) {
        return std::unexpected(ScimError{400, "mutability", "displayName is required and cannot be removed"});
      }
      auto name = displayNameOf(operation.value);
      if (!name) return std::unexpected(name.error());
      current.display_name = std::move(*name);
      continue;
    }
    if (path.attribute == "externalid") {
      if (operation.kind == PatchKind::Remove) {
        current.external_id.reset();
        continue;
      }
      auto external = externalIdOf(operation.value);
      if (!external) return std::unexpected(external.error());
      current.external_id = std::move(*external);
      continue;
    }
    // id, meta, schemas and attributes the gateway does not keep.
  }
  return current;
}

nlohmann::json renderGroup(const GroupView& group, std::string_view base_url, bool with_members) {
  nlohmann::json body = {{"schemas", {kGroupSchema}}, {"id", group.id}, {"displayName", group.display_name}};
  if (group.external_id) body["externalId"] = *group.external_id;
  if (with_members) {
    nlohmann::json members = nlohmann::json::array();
    for (const auto& member : group.members) {
      members.push_back({{"value", member.id},
                         {"display", member.name},
                         {"type", "User"},
                         {"$ref", std::string(base_url) + "/Users/" + member.id}});
    }
    body["members"] = std::move(members);
  }
  body["meta"] = metaOf("Group", base_url, group.id, group.created, group.last_modified);
  return body;
}

}  // namespace sluice::scim
