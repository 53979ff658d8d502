// The Members page's changes: add, update, disable and enable members; create and revoke their keys;
// and the record of these changes. Each goes through identity's member_admin.h, so each stored change
// is recorded as "console:<signed-in admin>". Bodies are untrusted: every field is type-checked and
// bounded here, names by identity's rules.
#include <algorithm>
#include <set>

#include "server/admin/api.h"
#include "server/admin/json_time.h"
#include "server/identity/member_admin.h"
#include "server/wire/json_access.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr size_t kMaxNames = 64;      // groups or projects of one member
constexpr long long kMaxKeyDays = 3650;

struct Body {
  wire::Json object;
};

std::expected<Body, Reply> bodyOf(const Exchange& exchange) {
  auto parsed = wire::parseRequestObject(exchange.body);
  if (!parsed) return std::unexpected(Reply::error(parsed.error().status, parsed.error().key, parsed.error().message));
  return Body{std::move(*parsed)};
}

Reply invalid(const std::string& message) { return Reply::error(400, "invalid_request", message); }

// A string field; refused when present with another type.
std::expected<std::optional<std::string>, Reply> stringField(const wire::Json& object, const char* key) {
  const wire::Json* value = wire::member(object, key);
  if (!value) return std::optional<std::string>{};
  if (!value->is_string()) return std::unexpected(invalid(std::string("\"") + key + "\" must be a string"));
  return std::optional<std::string>{value->get<std::string>()};
}

std::expected<std::optional<std::vector<std::string>>, Reply> namesField(const wire::Json& object, const char* key) {
  const wire::Json* value = wire::member(object, key);
  if (!value) return std::optional<std::vector<std::string>>{};
  const std::string what = std::string("\"") + key + "\"";
  if (!value->is_array()) return std::unexpected(invalid(what + " must be an array of names"));
  if (value->size() > kMaxNames) return std::unexpected(invalid(what + " holds more than 64 names"));
  std::vector<std::string> names;
  for (const auto& item : *value) {
    if (!item.is_string()) return std::unexpected(invalid(what + " must be an array of names"));
    names.push_back(item.get<std::string>());
  }
  return std::optional<std::vector<std::string>>{std::move(names)};
}

Reply memberError(const identity::MemberError& error) {
  switch (error.kind) {
    case identity::MemberErrorKind::Invalid: return invalid(error.message);
    case identity::MemberErrorKind::NoSuchMember: return Reply::error(404, "member_not_found", error.message);
    case identity::MemberErrorKind::AlreadyExists: return Reply::error(409, "member_exists", error.message);
    case identity::MemberErrorKind::SubjectTaken: return Reply::error(409, "subject_taken", error.message);
    case identity::MemberErrorKind::LastAdmin: return Reply::error(409, "last_admin", error.message);
    case identity::MemberErrorKind::HasHistory: return Reply::error(409, "member_has_history", error.message);
  }
  return invalid(error.message);
}

// Groups and projects some member holds or an access rule names: a name outside them is most often
// a typo, so it is refused unless the body says "allow_new": true.
std::optional<Reply> unknownName(ConsoleContext& context, const std::vector<std::string>& groups,
                                 const std::vector<std::string>& projects) {
  std::set<std::string, std::less<>> known_groups;
  std::set<std::string, std::less<>> known_projects;
  for (const auto& member : identity::listMembers(*context.members)) {
    known_groups.insert(member.groups.begin(), member.groups.end());
    known_projects.insert(member.projects.begin(), member.projects.end());
  }
  for (const auto& rule : context.gateway.catalog()->access_rules) {
    for (const auto* bands : {&rule.allow, &rule.deny}) {
      known_groups.insert(bands->group.begin(), bands->group.end());
      known_projects.insert(bands->project.begin(), bands->project.end());
    }
  }
  const auto check = [](const std::vector<std::string>& names, const std::set<std::string, std::less<>>& known,
                        const char* kind) -> std::optional<Reply> {
    for (const auto& name : names) {
      if (known.contains(name)) continue;
      const std::string shown = identity::validName(name) ? "'" + name + "'" : "(an invalid name)";
      return Reply::error(400, "unknown_name",
                          std::string(kind) + " " + shown + " is held by no member and named by no access rule; "
                              "check the spelling, or send \"allow_new\": true to start it");
    }
    return std::nullopt;
  };
  if (auto refused = check(groups, known_groups, "group")) return refused;
  return check(projects, known_projects, "project");
}

identity::AdminStores storesOf(ConsoleContext& context, const Exchange& exchange) {
  return identity::AdminStores{*context.members, *context.key_registry, *context.admin_events,
                               identity::adminActor("console", exchange.user)};
}

json memberJson(const identity::Member& member) {
  return {{"name", member.name},
          {"role", std::string(identity::toString(member.role))},
          {"groups", member.groups},
          {"projects", member.projects},
          {"primary_project", member.primary_project.value_or("")},
          {"disabled", member.disabled()}};
}

// The member a body names, checked.
std::expected<std::string, Reply> nameOf(const wire::Json& object, const char* key = "name") {
  auto name = stringField(object, key);
  if (!name) return std::unexpected(name.error());
  if (!*name || (*name)->empty()) return std::unexpected(invalid(std::string("\"") + key + "\" is required"));
  if (!identity::validName(**name)) {
    return std::unexpected(invalid("invalid member name: use a letter or digit, then letters, digits and . _ @ + - "
                                   "(at most 128)"));
  }
  return **name;
}

// The fields of a member a body may carry, each absent or checked for its type.
struct MemberFields {
  std::optional<std::string> role;
  std::optional<std::vector<std::string>> groups;
  std::optional<std::vector<std::string>> projects;
  std::optional<std::string> primary_project;
};

std::expected<MemberFields, Reply> memberFields(const wire::Json& object) {
  auto role = stringField(object, "role");
  if (!role) return std::unexpected(role.error());
  auto groups = namesField(object, "groups");
  if (!groups) return std::unexpected(groups.error());
  auto projects = namesField(object, "projects");
  if (!projects) return std::unexpected(projects.error());
  auto primary = stringField(object, "primary_project");
  if (!primary) return std::unexpected(primary.error());
  return MemberFields{*role, *groups, *projects, *primary};
}

// What adding and changing a member both read: the database present, the body, the name, the fields.
struct MemberRequest {
  wire::Json object;
  std::string name;
  MemberFields fields;
};

std::expected<MemberRequest, Reply> memberRequestOf(const ConsoleContext& context, const Exchange& exchange) {
  if (!context.members || !context.admin_events) {
    return std::unexpected(Reply::error(503, "no_database", "this gateway has no database"));
  }
  auto body = bodyOf(exchange);
  if (!body) return std::unexpected(body.error());
  auto name = nameOf(body->object);
  if (!name) return std::unexpected(name.error());
  auto fields = memberFields(body->object);
  if (!fields) return std::unexpected(fields.error());
  return MemberRequest{std::move(body->object), std::move(*name), std::move(*fields)};
}

}  // namespace

Reply memberAdd(ConsoleContext& context, const Exchange& exchange) {
  auto request = memberRequestOf(context, exchange);
  if (!request) return request.error();
  const auto& object = request->object;
  const auto& name = request->name;
  const auto& fields = request->fields;
  identity::NewMember member;
  member.name = name;
  const auto parsed_role = identity::parseRole(fields.role.value_or("member"));
  if (!parsed_role) return invalid("\"role\" must be member or admin");
  member.role = *parsed_role;
  member.groups = identity::withoutDuplicates(fields.groups.value_or(std::vector<std::string>{}));
  member.projects = identity::withoutDuplicates(fields.projects.value_or(std::vector<std::string>{}));
  if (fields.primary_project && !fields.primary_project->empty()) member.primary_project = fields.primary_project;
  if (!member.primary_project && !member.projects.empty()) member.primary_project = member.projects.front();
  if (auto problem = identity::validateMember(member)) return invalid(*problem);
  if (!wire::trueMember(object, "allow_new")) {
    if (auto refused = unknownName(context, member.groups, member.projects)) return *refused;
  }
  const auto added = identity::adminAddMember(storesOf(context, exchange), member, std::chrono::system_clock::now());
  if (!added) return memberError(added.error());
  return Reply::json({{"member", memberJson(*added)}}, 201);
}

Reply memberUpdate(ConsoleContext& context, const Exchange& exchange) {
  auto request = memberRequestOf(context, exchange);
  if (!request) return request.error();
  const auto& object = request->object;
  const auto& name = request->name;
  const auto& fields = request->fields;
  identity::MemberUpdate update;
  if (fields.role) {
    update.role = identity::parseRole(*fields.role);
    if (!update.role) return invalid("\"role\" must be member or admin");
    if (name == exchange.user && *update.role != identity::Role::Admin) {
      return Reply::error(409, "self_change", "you cannot take the admin role from yourself: another admin can");
    }
  }
  update.groups = fields.groups;
  update.projects = fields.projects;
  update.primary_project = fields.primary_project;
  if (!wire::trueMember(object, "allow_new")) {
    if (auto refused = unknownName(context, fields.groups.value_or(std::vector<std::string>{}),
                                   fields.projects.value_or(std::vector<std::string>{}))) {
      return *refused;
    }
  }
  const auto updated =
      identity::adminUpdateMember(storesOf(context, exchange), name, update, std::chrono::system_clock::now());
  if (!updated) return memberError(updated.error());
  return Reply::json({{"member", memberJson(*updated)}});
}

Reply memberSetDisabled(ConsoleContext& context, const Exchange& exchange, bool disabled) {
  if (!context.members || !context.admin_events) return Reply::error(503, "no_database", "this gateway has no database");
  auto body = bodyOf(exchange);
  if (!body) return body.error();
  auto name = nameOf(body->object);
  if (!name) return name.error();
  if (disabled && *name == exchange.user) {
    return Reply::error(409, "self_change", "you cannot disable yourself: you are signed in as " + *name);
  }
  const auto changed =
      identity::adminSetDisabled(storesOf(context, exchange), *name, disabled, std::chrono::system_clock::now());
  if (!changed) return memberError(changed.error());
  return Reply::json({{"name", *name}, {"disabled", disabled}, {"changed", *changed}});
}

Reply keyCreate(ConsoleContext& context, const Exchange& exchange) {
  if (!context.members || !context.admin_events) return Reply::error(503, "no_database", "this gateway has no database");
  auto body = bodyOf(exchange);
  if (!body) return body.error();
  const auto& object = body->object;
  auto user = nameOf(object, "user");
  if (!user) return user.error();
  auto label = stringField(object, "name");
  if (!label) return label.error();
  auto project = stringField(object, "project");
  if (!project) return project.error();
  const auto now = std::chrono::system_clock::now();
  identity::NewApiKey request;
  request.user = *user;
  if (*label && !(*label)->empty()) {
    if ((*label)->size() > 64) return invalid("\"name\" is longer than 64 characters");
    request.name = **label;
  }
  if (*project && !(*project)->empty()) {
    if (!identity::validName(**project)) return invalid("\"project\" is not a project name");
    request.project = **project;
  }
  if (const wire::Json* days = wire::member(object, "expires_days")) {
    const auto count = wire::asInteger(*days);
    if (!count || *count < 1 || *count > kMaxKeyDays) return invalid("\"expires_days\" must be a whole number, 1 to 3650");
    request.expires_at = now + std::chrono::days(*count);
  }
  auto created = identity::adminCreateKey(storesOf(context, exchange), request, now);
  if (!created) {
    const int status = created.error().kind == identity::KeyErrorKind::NoSuchMember ? 404
                       : created.error().kind == identity::KeyErrorKind::Invalid ? 400 : 409;
    return Reply::error(status, status == 404 ? "member_not_found" : "key_refused", created.error().message);
  }
  Reply reply = Reply::json({{"key", created->key},
                             {"id", created->info.id},
                             {"prefix", created->info.prefix},
                             {"user", created->info.user},
                             {"expires_at", created->info.expires_at ? json(isoTime(*created->info.expires_at)) : json()}},
                            201);
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

Reply keyRevoke(ConsoleContext& context, const Exchange& exchange) {
  if (!context.members || !context.admin_events) return Reply::error(503, "no_database", "this gateway has no database");
  auto body = bodyOf(exchange);
  if (!body) return body.error();
  auto text = stringField(body->object, "id");
  if (!text) return text.error();
  const auto id = *text ? identity::keyIdFrom(**text) : std::nullopt;
  // Never echoed: it may be a whole key pasted by mistake.
  if (!id) return invalid("\"id\" must be a key id (8 letters and digits) or its prefix sk-sluice-<id>");
  identity::ApiKeyInfo info;
  const auto result = identity::adminRevokeKey(storesOf(context, exchange), *id, std::chrono::system_clock::now(), &info);
  if (result == identity::RevokeResult::NoSuchKey) {
    return Reply::error(404, "key_not_found", "no API key " + identity::visiblePrefix(*id));
  }
  return Reply::json({{"prefix", info.prefix}, {"user", info.user}, {"changed", result == identity::RevokeResult::Revoked}});
}

Reply memberHistory(ConsoleContext& context, const Exchange& exchange) {
  if (!context.admin_events) return Reply::error(503, "no_database", "this gateway has no database");
  const auto member = exchange.optionalParam("member");
  if (member && !identity::validName(*member)) return invalid("\"member\" is not a member name");
  json events = json::array();
  for (const auto& row : context.admin_events->recent(200, member)) {
    events.push_back({{"at", isoTime(row.at)}, {"actor", row.actor}, {"action", row.action}, {"member", row.target},
                      {"detail", row.detail}});
  }
  return Reply::json({{"events", events}});
}

}  // namespace sluice::admin
