#pragma once
// SCIM 2.0 provisioning (RFC 7644) of members and groups: one call in, one answer out, with no
// HTTP in it (the bearer token, body limit and throttle are the handler's,
// server/provisioning/scim_handler.h). The pure parts are server/scim/'s; this file applies them
// to the stores and records every change in admin_events (actor "scim").
//
// What it does, beyond the RFC's plain CRUD (docs/identity.md, "SCIM provisioning"):
//  - userName is the member's name (member_store.h's validName) and never changes (400
//    mutability); a POST for a name that exists adopts a member made at the CLI, the console or
//    by a first sign-in (it keeps its source, role, groups, projects and keys; 201), and is 409
//    uniqueness when that member was made by SCIM or is linked to another externalId;
//  - active false disables the member (every key stops within the Authenticator's cache TTL,
//    console sessions at their next check), true enables it; a delete removes a member without
//    history, and disables and unlinks one with keys or audited requests (204 either way);
//  - a group's displayName is the group's name in members' groups (what the access rules match):
//    renaming renames it in every member, deleting takes it from every member;
//  - after a membership change of a member made by SCIM or SSO, group_roles.h's rule sets its role
//    from `admin_groups`.
//
// Throws what the stores throw when the database fails. Thread-safe as the stores are.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/store/admin_events.h"
#include "server/store/directory.h"
#include "server/store/member_roster.h"

namespace sluice::identity {

struct ProvisioningStores {
  store::Directory& directory;
  store::MemberRoster& members;
  store::AdminEvents& events;
};

struct ScimCall {
  std::string method;                        // "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string path;                          // under the SCIM root: "/Users", "/Groups/<id>", …
  std::map<std::string, std::string> query;  // decoded
  std::string body;                          // at most scim::kMaxBodyBytes
  std::string base_url;                      // the SCIM root as the client reached it, for meta.location
};

struct ScimAnswer {
  int status = 200;
  nlohmann::json body;   // null for 204
  std::string location;  // the Location header of a 201
  // For metrics: "Users", "Groups", "ServiceProviderConfig", "ResourceTypes", "Schemas" or "other".
  std::string resource = "other";
  // Things an operator should read in the log (the last admin kept, every admin disabled).
  std::vector<std::string> warnings;
};

// Answers one SCIM call at `now`. Errors are SCIM error bodies (scim/scim_error.h): 400 with a
// scimType, 404 for an unknown resource, 405 for a method a path does not take, 409 uniqueness.
ScimAnswer serveScim(const ProvisioningStores& stores, const ScimCall& call,
                     const std::vector<std::string>& admin_groups, std::chrono::system_clock::time_point now);

// A new random (version 4) UUID in lower case.
std::string newScimId();

}  // namespace sluice::identity
