#include "server/identity/provisioning.h"

#include <algorithm>
#include <cctype>

#include <openssl/rand.h>

#include "server/identity/group_roles.h"
#include "server/identity/member_store.h"
#include "server/identity/provisioning_steps.h"
#include "server/scim/body.h"
#include "server/scim/discovery.h"

namespace sluice::identity {

namespace provisioning {

namespace {

constexpr size_t kMaxDetail = 2000;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

scim::UserFields fieldsOf(const store::DirectoryUser& user) {
  const store::MemberRow& member = user.member;
  return {member.name,      member.external_id, member.display_name, user.given_name,
          user.family_name, member.email,       !member.disabled_at.has_value()};
}

store::UserProfile profileOf(const std::string& id, const scim::UserFields& fields) {
  return {id, fields.external_id, fields.display_name, fields.given_name, fields.family_name, fields.email};
}

// The names of the profile attributes that differ ("externalId, emails").
std::string changedAttributes(const scim::UserFields& before, const scim::UserFields& after) {
  std::vector<std::string> names;
  if (before.external_id != after.external_id) names.push_back("externalId");
  if (before.display_name != after.display_name) names.push_back("displayName");
  if (before.given_name != after.given_name || before.family_name != after.family_name) names.push_back("name");
  if (before.email != after.email) names.push_back("emails");
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::expected<store::UserMatch, scim::ScimError> userMatchOf(const std::optional<scim::Filter>& filter) {
  using Field = store::UserMatch::Field;
  if (!filter) return store::UserMatch{};
  const std::string& attribute = filter->attribute;
  Field field;
  if (attribute == "username") field = Field::UserName;
  else if (attribute == "externalid") field = Field::ExternalId;
  else if (attribute == "emails" || attribute == "emails.value") field = Field::Email;
  else if (attribute == "id") field = Field::Id;
  else if (attribute == "displayname") field = Field::DisplayName;
  else {
    return std::unexpected(scim::invalidFilter("Users are filtered by userName, externalId, emails.value, "
                                               "displayName or id, not " + attribute));
  }
  return store::UserMatch{field, filter->value};
}

ScimAnswer created(const Step& step, const store::DirectoryUser& user) {
  ScimAnswer answer;
  answer.status = 201;
  answer.body = renderDirectoryUser(user, step.call.base_url);
  answer.location = step.call.base_url + "/Users/" + *user.member.scim_id;
  return answer;
}

// Stores `next` over `current` (profile, then active), recording each change; the user as stored.
store::DirectoryUser applyUser(const Step& step, const store::DirectoryUser& current, const scim::UserFields& next) {
  const scim::UserFields before = fieldsOf(current);
  const std::string& name = current.member.name;
  if (const std::string changed = changedAttributes(before, next); !changed.empty()) {
    step.stores.directory.updateProfile(name, profileOf(*current.member.scim_id, next));
    step.record("member.update", name, changed + " from the identity provider");
  }
  if (before.active != next.active) {
    if (!next.active) {
      if (step.stores.members.setDisabled(name, step.now) == store::DisableChange::Disabled) {
        step.record("member.disable", name, "active false: deprovisioned by the identity provider");
      }
    } else if (step.stores.members.clearDisabled(name) == store::EnableChange::Enabled) {
      step.record("member.enable", name, "active true");
    }
  }
  auto stored = step.stores.directory.findUser(*current.member.scim_id);
  return stored ? *stored : current;
}

ScimAnswer createUser(const Step& step, const nlohmann::json& body) {
  auto fields = scim::userFromJson(body);
  if (!fields) return failed(fields.error());
  if (!validName(fields->user_name)) {
    return failed(scim::invalidValue("userName '" + fields->user_name +
                                     "' is not a member name: a letter or digit, then letters, digits and . _ @ + - "
                                     "(at most 128)"));
  }
  if (auto existing = step.stores.directory.findUserByName(fields->user_name)) {
    const store::MemberRow& member = existing->member;
    const bool linked_elsewhere = member.external_id && fields->external_id && *member.external_id != *fields->external_id;
    if (member.source == "scim" || linked_elsewhere) {
      return failed({409, "uniqueness",
                     "a User with userName '" + member.name + "' already exists" +
                         (member.scim_id ? " (id " + *member.scim_id + ")" : std::string())});
    }
    // Adoption: a member made at the CLI, the console or by a first sign-in becomes SCIM's to keep
    // up to date (NOTE: RFC 7644 would answer 409; Okta and Entra ID then fail to link the person).
    const std::string id = member.scim_id.value_or(newScimId());
    scim::UserFields next = *fields;
    if (!next.external_id) next.external_id = member.external_id;
    step.stores.directory.updateProfile(member.name, profileOf(id, next));
    step.record("member.adopt", member.name,
                "linked to SCIM id " + id + (next.external_id ? "; externalId " + *next.external_id : std::string()) +
                    "; made by " + member.source);
    auto adopted = step.stores.directory.findUser(id);
    if (!adopted) return notFound("User", id);
    adopted = applyUser(step, *adopted, next);
    step.settleRoles({member.name});
    if (auto fresh = step.stores.directory.findUser(id)) adopted = fresh;
    return created(step, *adopted);
  }
  store::DirectoryUser user;
  user.member.name = fields->user_name;
  user.member.role = "member";
  user.member.created_at = step.now;
  user.member.source = "scim";
  if (!fields->active) user.member.disabled_at = step.now;
  const std::string id = newScimId();
  auto inserted = step.stores.directory.insertUser(user, profileOf(id, *fields));
  if (!inserted) return failed({409, "uniqueness", "a User with userName '" + fields->user_name + "' already exists"});
  step.record("member.create", fields->user_name,
              "source scim; id " + id + (fields->external_id ? "; externalId " + *fields->external_id : std::string()) +
                  (fields->active ? "" : "; active false"));
  return created(step, *inserted);
}

ScimAnswer listUsers(const Step& step) {
  auto query = scim::parseListQuery(step.call.query);
  if (!query) return failed(query.error());
  auto match = userMatchOf(query->filter);
  if (!match) return failed(match.error());
  const auto page = step.stores.directory.findUsers(*match, query->start_index - 1, query->count);
  nlohmann::json resources = nlohmann::json::array();
  for (const auto& user : page.users) resources.push_back(renderDirectoryUser(user, step.call.base_url));
  ScimAnswer answer;
  answer.body = scim::listResponse(std::move(resources), page.total, query->start_index);
  return answer;
}

// Replaces (PUT) or patches (PATCH) user `current`.
ScimAnswer changeUser(const Step& step, const store::DirectoryUser& current, const nlohmann::json& body, bool patch) {
  std::expected<scim::UserFields, scim::ScimError> next;
  if (patch) {
    auto operations = scim::parsePatch(body);
    if (!operations) return failed(operations.error());
    next = scim::applyUserPatch(fieldsOf(current), *operations);
  } else {
    next = scim::userFromJson(body);
  }
  if (!next) return failed(next.error());
  if (next->user_name != current.member.name) {
    return failed({400, "mutability",
                   "userName is the member's name (in its keys and the audit trail) and cannot change from '" +
                       current.member.name + "'"});
  }
  const auto stored = applyUser(step, current, *next);
  ScimAnswer answer;
  answer.body = renderDirectoryUser(stored, step.call.base_url);
  return answer;
}

ScimAnswer deleteUser(const Step& step, const store::DirectoryUser& user) {
  const std::string& name = user.member.name;
  switch (step.stores.members.removeMember(name)) {
    case store::RemoveChange::Removed: step.record("member.delete", name, "deleted by the identity provider"); break;
    case store::RemoveChange::NoSuchMember: return notFound("User", *user.member.scim_id);
    case store::RemoveChange::HasHistory:
      // Keys and audited requests name the member: it stays, disabled and no longer SCIM's.
      if (step.stores.members.setDisabled(name, step.now) == store::DisableChange::Disabled) {
        step.record("member.disable", name, "deleted by the identity provider");
      }
      step.stores.directory.detachUser(name);
      step.record("member.detach", name, "SCIM id " + *user.member.scim_id + " removed; kept disabled (keys or audited requests)");
      break;
  }
  ScimAnswer answer;
  answer.status = 204;
  return answer;
}

}  // namespace

void Step::record(std::string_view action, std::string_view target, std::string detail) const {
  if (detail.size() > kMaxDetail) detail = detail.substr(0, kMaxDetail - 3) + "...";
  std::string who(target.substr(0, 200));
  stores.events.append(store::AdminEventRow{0, now, "scim", std::string(action), who, std::move(detail)});
}

void Step::settleRoles(const std::vector<std::string>& names) const {
  if (admin_groups.empty()) return;
  for (const auto& name : names) {
    const auto member = stores.members.findMember(name);
    if (!member || !groupsDecideRole(member->source)) continue;
    const auto settled = settleRoleFromGroups(stores.members, name, admin_groups);
    using Outcome = RoleSettlement::Outcome;
    if (settled.outcome == Outcome::Promoted) record("member.update", name, "role member -> admin (admin groups)");
    if (settled.outcome == Outcome::Demoted) record("member.update", name, "role admin -> member (admin groups)");
    if (settled.outcome == Outcome::KeptLastAdmin) {
      answer.warnings.push_back("member " + name + " left the admin groups but is the only enabled admin: kept admin");
    }
  }
}

ScimAnswer ok(nlohmann::json body) {
  ScimAnswer answer;
  answer.body = std::move(body);
  return answer;
}

ScimAnswer failed(const scim::ScimError& error) {
  ScimAnswer answer;
  answer.status = error.status;
  answer.body = scim::errorBody(error);
  return answer;
}

ScimAnswer notFound(std::string_view what, std::string_view id) {
  return failed({404, "", "no " + std::string(what) + " with id '" + std::string(id.substr(0, 64)) + "'"});
}

nlohmann::json renderDirectoryUser(const store::DirectoryUser& user, std::string_view base_url) {
  scim::UserView view;
  view.id = user.member.scim_id.value_or("");
  view.fields = fieldsOf(user);
  view.created = user.member.created_at;
  view.last_modified = user.member.disabled_at.value_or(user.member.created_at);
  view.source = user.member.source;
  view.role = user.member.role;
  view.groups = user.member.groups;
  return scim::renderUser(view, base_url);
}

ScimAnswer serveUsers(const Step& step, const std::string& id) {
  const std::string& method = step.call.method;
  if (id.empty()) {
    if (method == "GET") return listUsers(step);
    if (method != "POST") return failed({405, "", "/Users takes GET and POST"});
    auto body = scim::parseBody(step.call.body);
    if (!body) return failed(body.error());
    return createUser(step, *body);
  }
  const auto user = step.stores.directory.findUser(id);
  if (!user) return notFound("User", id);
  if (method == "GET") {
    ScimAnswer answer;
    answer.body = renderDirectoryUser(*user, step.call.base_url);
    return answer;
  }
  if (method == "DELETE") return deleteUser(step, *user);
  if (method != "PUT" && method != "PATCH") return failed({405, "", "/Users/{id} takes GET, PUT, PATCH and DELETE"});
  auto body = scim::parseBody(step.call.body);
  if (!body) return failed(body.error());
  return changeUser(step, *user, *body, method == "PATCH");
}

}  // namespace provisioning

std::string newScimId() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("the random generator failed");
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += kHex[bytes[i] >> 4];
    id += kHex[bytes[i] & 0x0f];
  }
  return id;
}

ScimAnswer serveScim(const ProvisioningStores& stores, const ScimCall& call, const std::vector<std::string>& admin_groups,
                     std::chrono::system_clock::time_point now) {
  using namespace provisioning;
  ScimAnswer answer;
  const Step step{stores, call, admin_groups, now, answer};
  // "/Users/abc" → resource "users", id "abc"; resource names in any case.
  std::string path = call.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t second = path.find('/', 1);
  const std::string resource = lower(path.substr(1, second == std::string::npos ? std::string::npos : second - 1));
  const std::string id = second == std::string::npos ? std::string() : path.substr(second + 1);
  ScimAnswer result;
  if (resource == "users" && id.find('/') == std::string::npos) {
    result = serveUsers(step, id);
    result.resource = "Users";
  } else if (resource == "groups" && id.find('/') == std::string::npos) {
    result = serveGroups(step, id);
    result.resource = "Groups";
  } else if (resource == "serviceproviderconfig" && id.empty()) {
    result = call.method == "GET" ? ok(scim::serviceProviderConfig(call.base_url)) : failed({405, "", "GET only"});
    result.resource = "ServiceProviderConfig";
  } else if (resource == "resourcetypes" || resource == "schemas") {
    const auto list = resource == "schemas" ? scim::schemas(call.base_url) : scim::resourceTypes(call.base_url);
    result.resource = resource == "schemas" ? "Schemas" : "ResourceTypes";
    if (call.method != "GET") {
      result = failed({405, "", "GET only"});
    } else if (id.empty()) {
      result.body = list;
    } else {
      result = notFound(resource == "schemas" ? "Schema" : "ResourceType", id);
      for (const auto& item : list["Resources"]) {
        if (item["id"] == id) result = ok(item);
      }
    }
    result.resource = resource == "schemas" ? "Schemas" : "ResourceTypes";
  } else {
    result = failed({404, "", "no SCIM endpoint " + call.path.substr(0, 200) +
                                  ": /Users, /Groups, /ServiceProviderConfig, /ResourceTypes, /Schemas"});
  }
  result.warnings.insert(result.warnings.end(), answer.warnings.begin(), answer.warnings.end());
  return result;
}

}  // namespace sluice::identity
