#pragma once
// The SCIM Group (RFC 7643 §4.2) as the gateway keeps it: a display name (the group's name in
// members' groups and in the access rules), an externalId, and members named by their User ids.
// Read from a POST or PUT body, changed by PATCH operations (Entra ID's
// {"op":"Remove","path":"members","value":[{"value":"…"}]}, Okta's members[value eq "…"] path,
// path-less {"displayName": …}), rendered back. Pure.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/scim/meta.h"
#include "server/scim/patch.h"
#include "server/scim/scim_error.h"

namespace sluice::scim {

struct GroupFields {
  std::string display_name;
  std::optional<std::string> external_id;
  std::vector<std::string> member_ids;  // User ids, each once, in the order given

  bool operator==(const GroupFields&) const = default;
};

// Why a display name cannot name a group (empty, over kMaxGroupNameBytes, a control character,
// blanks at either end), or nullopt.
std::optional<std::string> groupNameProblem(std::string_view name);

// A POST or PUT body. invalidValue (400) for a missing or bad displayName, members that are not
// [{"value": "<id>"}…], more than kMaxMembersPerRequest of them.
std::expected<GroupFields, ScimError> groupFromJson(const nlohmann::json& body);

// `current` with `operations` applied in order: add/remove/replace of members (by value array or
// a members[value eq "…"] path; remove without value empties the group), replace of displayName
// and externalId. invalidValue as groupFromJson.
std::expected<GroupFields, ScimError> applyGroupPatch(GroupFields current, const std::vector<PatchOperation>& operations);

// A member as a group lists it.
struct GroupMember {
  std::string id;    // the User id
  std::string name;  // its userName
};

struct GroupView {
  std::string id;
  std::string display_name;
  std::optional<std::string> external_id;
  std::vector<GroupMember> members;
  TimePoint created;
  TimePoint last_modified;
};

// The resource; `with_members` false leaves members out (excludedAttributes=members, as Entra ID
// asks when it looks a group up).
nlohmann::json renderGroup(const GroupView& group, std::string_view base_url, bool with_members = true);

}  // namespace sluice::scim
